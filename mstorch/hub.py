"""torch.hub on mstorch: the hub cache layout, URL downloads with hash checks, checkpoints loaded through
``mstorch.load``, and entry points from a ``hubconf.py``.

Everything is plain Python over ``urllib``, as in torch. GitHub sources work as in torch: a repository
already in the hub cache (``<hub_dir>/<owner>_<name>_<ref>``) is used without network; otherwise the
archive is downloaded from GitHub, which needs network access (torch's own errors then come from
``urllib``: ``URLError``, or torch's "no internet connection" RuntimeError when the ref has to be looked
up). A ``hubconf.py`` runs as ordinary Python: one written for torch that does ``import torch`` needs
``python -m mstorch run`` (or its own import of mstorch) to get mstorch.
"""
import contextlib
import errno
import hashlib
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile
import uuid
import warnings
import zipfile
from pathlib import Path
from urllib.error import HTTPError, URLError
from urllib.parse import urlparse
from urllib.request import Request, urlopen

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

# the hash part of a checkpoint name: "bfd8deac" in resnet18-bfd8deac.pth
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
_TRUSTED_REPO_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")
ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
READ_DATA_CHUNK = 128 * 1024
_hub_dir = None


class _Progress:
    """A minimal stand-in for tqdm (used when tqdm is not installed), printing to stderr as torch's does."""

    def __init__(self, total=None, disable=False, **kwargs):
        self.total, self.disable, self.n = total, disable, 0

    def update(self, n):
        if self.disable:
            return
        self.n += n
        if self.total is None:
            sys.stderr.write(f"\r{self.n:.1f} bytes")
        else:
            sys.stderr.write(f"\r{100 * self.n / float(self.total):.1f}%")
        sys.stderr.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self.disable:
            sys.stderr.write("\n")


try:
    from tqdm import tqdm
except ImportError:
    tqdm = _Progress


def _get_torch_home():
    default = os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch")
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, default))


def get_dir():
    """Mirrors torch.hub.get_dir: the set_dir() directory, else ``$TORCH_HOME/hub``."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d):
    """Mirrors torch.hub.set_dir."""
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


# --- downloads ----------------------------------------------------------------------------------

def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Mirrors torch.hub.download_url_to_file: download to ``dst + .<uuid>.partial``, check the SHA256
    prefix, then move into place (the partial file is removed on any failure)."""
    dst = os.path.expanduser(dst)
    for _ in range(tempfile.TMP_MAX):
        tmp_dst = dst + "." + uuid.uuid4().hex + ".partial"
        try:
            f = open(tmp_dst, "w+b")  # noqa: SIM115 - closed in the finally below
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(errno.EEXIST, "No usable temporary file name found")
    try:
        with urlopen(Request(url, headers={"User-Agent": "torch.hub"})) as u:
            lengths = u.info().get_all("Content-Length")
            size = int(lengths[0]) if lengths else None
            sha256 = hashlib.sha256() if hash_prefix is not None else None
            with tqdm(total=size, disable=not progress, unit="B", unit_scale=True, unit_divisor=1024) as bar:
                while True:
                    chunk = u.read(READ_DATA_CHUNK)
                    if not chunk:
                        break
                    f.write(chunk)
                    if sha256 is not None:
                        sha256.update(chunk)
                    bar.update(len(chunk))
            f.close()
            if sha256 is not None:
                digest = sha256.hexdigest()
                if digest[:len(hash_prefix)] != hash_prefix:
                    raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
        shutil.move(f.name, dst)
    finally:
        f.close()
        if os.path.exists(f.name):
            os.remove(f.name)


def _safe_extract_zip(zf, extract_to):
    """Extract refusing entries that would land outside ``extract_to`` (torch's zip-slip checks and messages)."""
    root = Path(extract_to).resolve(strict=False)
    for member in zf.infolist():
        name = os.path.normpath(member.filename)
        if name.startswith(("/", "\\")) or (len(name) >= 2 and name[1] == ":" and name[0].isalpha()):
            raise ValueError(f"Archive entry has absolute path: {member.filename}")
        if ".." in re.split(r"[/\\]", name):
            raise ValueError(f"Archive entry contains directory traversal: {member.filename}")
        if not (root / name).resolve(strict=False).is_relative_to(root):
            raise ValueError(f"Archive entry escapes target directory: {member.filename}")
        zf.extract(member, root)


def _is_legacy_zip_format(filename):
    # a zip holding exactly one file is the pre-1.6 way of shipping a checkpoint (torch.save's own zip
    # format holds several entries)
    if zipfile.is_zipfile(filename):
        with zipfile.ZipFile(filename) as zf:
            infos = zf.infolist()
        return len(infos) == 1 and not infos[0].is_dir()
    return False


def _legacy_zip_load(filename, model_dir, map_location, weights_only):
    from .serialization import load as _load
    warnings.warn("Falling back to the old format < 1.6. This support will be deprecated in favor of default "
                  "zipfile format introduced in 1.6. Please redo torch.save() to save it in the new zipfile "
                  "format.", FutureWarning, stacklevel=3)
    with zipfile.ZipFile(filename) as zf:
        members = zf.infolist()
        if len(members) != 1:
            raise RuntimeError("Only one file(not dir) is allowed in the zipfile")
        _safe_extract_zip(zf, model_dir)
        extracted = os.path.join(model_dir, members[0].filename)
    return _load(extracted, map_location=map_location, weights_only=weights_only)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=False):
    """Mirrors torch.hub.load_state_dict_from_url: cached under ``<hub_dir>/checkpoints``, loaded with
    mstorch.load (which reads torch's checkpoint format)."""
    from .serialization import load as _load
    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        hash_prefix = None
        if check_hash:
            m = HASH_REGEX.search(filename)
            hash_prefix = m.group(1) if m else None
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)
    if _is_legacy_zip_format(cached_file):
        return _legacy_zip_load(cached_file, model_dir, map_location, weights_only)
    return _load(cached_file, map_location=map_location, weights_only=weights_only)


# --- hubconf entry points -----------------------------------------------------------------------

@contextlib.contextmanager
def _add_to_sys_path(path):
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)


def _import_module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise AssertionError(f"failed to load spec from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load_hubconf(repo_dir):
    with _add_to_sys_path(repo_dir):
        return _import_module(MODULE_HUBCONF, os.path.join(repo_dir, MODULE_HUBCONF))


def _load_entry_from_hubconf(m, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    deps = getattr(m, VAR_DEPENDENCY, None) if VAR_DEPENDENCY in dir(m) else None
    if deps is not None:
        missing = [pkg for pkg in deps if importlib.util.find_spec(pkg) is None]
        if missing:
            raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    func = getattr(m, model) if model in dir(m) else None
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def _remove_if_exists(path):
    if os.path.exists(path):
        if os.path.isfile(path):
            os.remove(path)
        else:
            shutil.rmtree(path)


def _parse_repo_info(github):
    repo_info, ref = github.split(":") if ":" in github else (github, None)
    owner, name = repo_info.split("/")
    if ref is None:
        try:
            with urlopen(f"https://github.com/{owner}/{name}/tree/main/"):
                ref = "main"
        except HTTPError as e:
            if e.code != 404:
                raise
            ref = "master"
        except URLError as e:
            for candidate in ("main", "master"):
                if os.path.exists(f"{get_dir()}/{owner}_{name}_{candidate}"):
                    ref = candidate
                    break
            if ref is None:
                raise RuntimeError("It looks like there is no internet connection and the repo could not be "
                                   f"found in the cache ({get_dir()})") from e
    return owner, name, ref


def _validate_not_a_forked_repo(owner, name, ref):
    headers = {"Accept": "application/vnd.github.v3+json"}
    token = os.environ.get(ENV_GITHUB_TOKEN)
    if token is not None:
        headers["Authorization"] = f"token {token}"
    for prefix in (f"https://api.github.com/repos/{owner}/{name}/branches",
                   f"https://api.github.com/repos/{owner}/{name}/tags"):
        page = 0
        while True:
            page += 1
            url = f"{prefix}?per_page=100&page={page}"
            try:
                with urlopen(Request(url, headers=headers)) as r:
                    items = json.loads(r.read().decode(r.headers.get_content_charset("utf-8")))
            except HTTPError:
                headers.pop("Authorization", None)
                with urlopen(Request(url, headers=headers)) as r:
                    items = json.loads(r.read().decode(r.headers.get_content_charset("utf-8")))
            if not items:
                break
            if any(it["name"] == ref or it["commit"]["sha"].startswith(ref) for it in items):
                return
    raise ValueError(f"Cannot find {ref} in https://github.com/{owner}/{name}. If it's a commit from a forked "
                     "repo, please call hub.load() with forked repo directly.")


def _check_repo_is_trusted(owner, name, owner_name_branch, trust_repo):
    hub_dir = get_dir()
    trusted_file = os.path.join(hub_dir, "trusted_list")
    if not os.path.exists(trusted_file):
        Path(trusted_file).touch()
    with open(trusted_file) as fh:
        trusted = tuple(line.strip() for line in fh)
    legacy = next(os.walk(hub_dir))[1]  # a repo already downloaded by an older torch counts as trusted
    owner_name = f"{owner}_{name}"
    is_trusted = owner_name in trusted or owner_name_branch in legacy or owner in _TRUSTED_REPO_OWNERS
    if trust_repo is False or (trust_repo == "check" and not is_trusted):
        response = input(f"The repository {owner_name} does not belong to the list of trusted repositories and "
                         "as such cannot be downloaded. Do you trust this repository and wish to add it to the "
                         "trusted list of repositories (y/N)?")
        if response.lower() in ("y", "yes"):
            if is_trusted:
                print("The repository is already trusted.")
        elif response.lower() in ("n", "no", ""):
            raise Exception("Untrusted repository.")  # noqa: TRY002 - torch raises a bare Exception
        else:
            raise ValueError(f"Unrecognized response {response}.")
    if not is_trusted:
        with open(trusted_file, "a") as fh:
            fh.write(owner_name + "\n")


def _get_cache_or_reload(github, force_reload, trust_repo, verbose=True, skip_validation=False):
    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    owner, name, ref = _parse_repo_info(github)
    branch = ref.replace("/", "_")
    owner_name_branch = "_".join([owner, name, branch])
    repo_dir = os.path.join(hub_dir, owner_name_branch)
    _check_repo_is_trusted(owner, name, owner_name_branch, trust_repo)
    if not force_reload and os.path.exists(repo_dir):
        if verbose:
            sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir
    if not skip_validation:
        _validate_not_a_forked_repo(owner, name, ref)
    cached_file = os.path.join(hub_dir, branch + ".zip")
    _remove_if_exists(cached_file)
    url = f"https://github.com/{owner}/{name}/zipball/{ref}"
    sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
    try:
        download_url_to_file(url, cached_file, progress=False)
    except HTTPError as err:
        if err.code != 300:
            raise
        warnings.warn(f"The ref {ref} is ambiguous. Perhaps it is both a tag and a branch in the repo? Torchhub "
                      "will now assume that it's a branch. You can disambiguate tags and branches by explicitly "
                      "passing refs/heads/branch_name or refs/tags/tag_name as the ref. That might require using "
                      "skip_validation=True.", stacklevel=2)
        download_url_to_file(f"https://github.com/{owner}/{name}/zipball/refs/heads/{ref}", cached_file,
                             progress=False)
    with zipfile.ZipFile(cached_file) as zf:
        extracted = os.path.join(hub_dir, zf.infolist()[0].filename)
        _remove_if_exists(extracted)
        _safe_extract_zip(zf, hub_dir)
    _remove_if_exists(cached_file)
    _remove_if_exists(repo_dir)
    shutil.move(extracted, repo_dir)
    return repo_dir


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):  # noqa: A001
    """Mirrors torch.hub.list: the public callables of the repo's hubconf.py."""
    repo_dir = _get_cache_or_reload(github, force_reload, trust_repo, verbose=verbose,
                                    skip_validation=skip_validation)
    m = _load_hubconf(repo_dir)
    return [f for f in dir(m) if callable(getattr(m, f)) and not f.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):  # noqa: A001
    """Mirrors torch.hub.help: the docstring of one hubconf entry point."""
    repo_dir = _get_cache_or_reload(github, force_reload, trust_repo, verbose=True, skip_validation=skip_validation)
    return _load_entry_from_hubconf(_load_hubconf(repo_dir), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False, verbose=True,
         skip_validation=False, **kwargs):
    """Mirrors torch.hub.load: call entry point ``model`` of a GitHub repo's (or local directory's)
    hubconf.py with ``*args, **kwargs``."""
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        repo_or_dir = _get_cache_or_reload(repo_or_dir, force_reload, trust_repo, verbose=verbose,
                                           skip_validation=skip_validation)
    return _load_local(repo_or_dir, model, *args, **kwargs)


def _load_local(hubconf_dir, model, *args, **kwargs):
    with _add_to_sys_path(hubconf_dir):
        m = _import_module(MODULE_HUBCONF, os.path.join(hubconf_dir, MODULE_HUBCONF))
        return _load_entry_from_hubconf(m, model)(*args, **kwargs)

