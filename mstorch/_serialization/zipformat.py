"""torch's checkpoint container: an uncompressed zip laid out as PyTorch's writer (miniz) lays it out.

Every record's data starts at a multiple of 64 bytes (a local-header extra field named "FB" pads it),
so a loader can map the file and use storages in place; each record with data is followed by a data
descriptor; zip64 end records are always written. torch computes storage offsets from this layout
when it maps a file, so mstorch follows it byte for byte, including zip64 fields past 4 GiB.
"""
import hashlib
import os
import struct
import sys
import zipfile
import zlib

import numpy as np

ALIGNMENT = 64
_U32 = 0xFFFFFFFF  # a 32-bit field that says "see the zip64 extra field"
ZIP64_AT = _U32  # sizes and offsets from here on need zip64 fields (tests lower it)
_CHUNK = 1 << 28


def _crc32(data):
    mv = memoryview(data).cast("B")
    crc = 0
    for i in range(0, len(mv), _CHUNK):
        crc = zlib.crc32(mv[i:i + _CHUNK], crc)
    return crc


def _zip64_extra(size, offset, local=False):
    fields = b""
    if size >= ZIP64_AT:
        # miniz fills the local header's copy before it knows the compressed size
        fields += struct.pack("<QQ", size, 0 if local else size)
    if offset >= ZIP64_AT:
        fields += struct.pack("<Q", offset)
    return struct.pack("<HH", 1, len(fields)) + fields if fields else b""


def _field(value):
    return _U32 if value >= ZIP64_AT else value


class ZipWriter:
    """Writes records ``<archive>/<name>`` to a binary file object."""

    def __init__(self, out, archive_name="archive", compute_crc32=True):
        self._out = out
        self._compute_crc32 = compute_crc32   # (torch.serialization.set_crc32_options: off writes 0)
        self._pos = 0
        self._prefix = archive_name + "/"
        self._entries = []
        self._names_hash = hashlib.blake2b(digest_size=8)
        self._crcs = hashlib.blake2b(digest_size=8)

    def write_record(self, name, data):
        data = memoryview(data).cast("B") if not isinstance(data, bytes) else data
        self._record(name, len(data), data)

    def write_record_metadata(self, name, size):
        """A record of ``size`` zero bytes with a CRC of 0: its header and place only, as torch writes a
        storage under torch.serialization.skip_data (the bytes can be filled in later)."""
        self._record(name, size, None)

    def _record(self, name, size, data):
        name_b = (self._prefix + name).encode("utf-8")
        offset = self._pos
        z64 = _zip64_extra(size, offset, local=True)
        start = offset + 30 + len(name_b) + len(z64) + 4
        pad = -start % ALIGNMENT
        extra = z64 + b"FB" + struct.pack("<H", pad) + b"Z" * pad
        flags = 0x0808 if size else 0x0800  # UTF-8 names; sizes in a data descriptor
        self._write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 0, flags, 0, 0, 0, 0, 0, 0, len(name_b), len(extra)))
        self._write(name_b)
        self._write(extra)
        crc = 0
        if size:
            if data is None:
                for i in range(0, size, 1 << 20):
                    self._write(bytes(min(1 << 20, size - i)))
            else:
                self._write(data)
                crc = _crc32(data) if self._compute_crc32 else 0
            if z64:
                self._write(struct.pack("<IIQQ", 0x08074B50, crc, size, size))
            else:
                self._write(struct.pack("<IIII", 0x08074B50, crc, size, size))
        self._entries.append((name_b, flags, crc, size, offset))
        self._names_hash.update(name_b)
        self._crcs.update(struct.pack("<I", crc))

    def _write(self, b):
        self._out.write(b)
        self._pos += len(b)

    def finish(self):
        """torch's end of file: the version and serialization id records, then the central directory."""
        self.write_record("version", b"3\n")
        if (self._prefix + "byteorder").encode("utf-8") not in (e[0] for e in self._entries):
            # torch's writer records the byte order in any case (save's _disable_byteorder_record only
            # moves the record here)
            self.write_record("byteorder", sys.byteorder.encode())
        # torch's id: 20 digits from the record names, 20 from their CRCs
        sid = (f"{int.from_bytes(self._names_hash.digest(), 'little') % 10**20:020d}"
               f"{int.from_bytes(self._crcs.digest(), 'little') % 10**20:020d}")
        self.write_record(".data/serialization_id", sid.encode("ascii"))
        cd_start = self._pos
        for name_b, flags, crc, size, offset in self._entries:
            z64 = _zip64_extra(size, offset)
            self._write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0, 0, flags, 0, 0, 0, crc, _field(size),
                                    _field(size), len(name_b), len(z64), 0, 0, 0, 0, _field(offset)))
            self._write(name_b)
            self._write(z64)
        cd_size = self._pos - cd_start
        n = len(self._entries)
        eocd64 = self._pos
        self._write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 0x002D, 0, 0, n, n, cd_size, cd_start))
        self._write(struct.pack("<IIQI", 0x07064B50, 0, eocd64, 1))
        self._write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(n, 0xFFFF), min(n, 0xFFFF), min(cd_size, _U32),
                                min(cd_start, _U32), 0))


def archive_name_for(path):
    """torch names the archive folder after the file (without extension); ASCII names only."""
    base = os.path.basename(path)
    stem = base[:base.rfind(".")] if "." in base else base
    try:
        stem.encode("ascii")
    except UnicodeEncodeError:
        return "archive"
    return stem


class ZipReader:
    """Reads the records of a torch checkpoint from a seekable binary file object."""

    def __init__(self, f):
        self._f = f
        try:
            self._zip = zipfile.ZipFile(f)
        except zipfile.BadZipFile as e:
            raise RuntimeError(f"PytorchStreamReader failed reading zip archive: {e}") from None
        names = self._zip.namelist()
        if not names or "/" not in names[0]:
            raise RuntimeError("PytorchStreamReader failed locating file: file in archive is not in a subdirectory")
        self._prefix = names[0].split("/", 1)[0] + "/"
        self._names = set(names)

    def has_record(self, name):
        return self._prefix + name in self._names

    def record_names(self):
        return [n[len(self._prefix):] for n in self._names if n.startswith(self._prefix)]

    def get_record(self, name):
        info = self._info(name)
        if info.compress_type != zipfile.ZIP_STORED:
            return self._zip.read(info)
        # read in place, not through zipfile, which checks the CRC: torch's reader does not, and a file
        # saved with set_crc32_options(False) or under skip_data has CRCs of 0
        self._f.seek(self.data_offset(name))
        return self._f.read(info.file_size)

    def _info(self, name):
        full = self._prefix + name
        if full not in self._names:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not found")
        return self._zip.getinfo(full)

    def data_offset(self, name):
        info = self._info(name)
        self._f.seek(info.header_offset + 26)
        n, e = struct.unpack("<HH", self._f.read(4))
        return info.header_offset + 30 + n + e

    def record_array(self, name, nbytes, mapped=None):
        """The first ``nbytes`` of a record as a uint8 array: a view of ``mapped`` (a file mapping)
        when given, else a fresh copy."""
        info = self._info(name)
        if info.file_size < nbytes:
            raise RuntimeError(f"mstorch.load: record {name} holds {info.file_size} bytes, the checkpoint "
                               f"needs {nbytes}")
        if info.compress_type != zipfile.ZIP_STORED:
            return np.frombuffer(self._zip.read(info), np.uint8, count=nbytes).copy()
        offset = self.data_offset(name)
        if mapped is not None:
            return np.frombuffer(mapped, np.uint8, count=nbytes, offset=offset)
        arr = np.empty(nbytes, np.uint8)
        self._f.seek(offset)
        _read_into(self._f, arr)
        return arr

    def close(self):
        self._zip.close()


def _read_into(f, arr):
    view = memoryview(arr).cast("B")
    readinto = getattr(f, "readinto", None)
    got = 0
    while got < len(view):
        if readinto is not None:
            n = readinto(view[got:])
        else:
            chunk = f.read(len(view) - got)
            n = len(chunk)
            view[got:got + n] = chunk
        if not n:
            raise RuntimeError("mstorch.load: unexpected end of file while reading a storage")
        got += n


def is_zipfile(f):
    start = f.tell()
    magic = f.read(4)
    f.seek(start)
    return magic == b"PK\x03\x04"


def buffer_writer(f):
    """A writer target for a user's file object (torch requires a callable ``write``)."""
    if not callable(getattr(f, "write", None)):
        msg = f"Buffer of {str(type(f)).strip('<>')} has no callable attribute 'write'"
        if not hasattr(f, "write"):
            raise AttributeError(msg)
        raise TypeError(msg)
    return f

