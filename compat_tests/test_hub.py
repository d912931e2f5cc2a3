"""torch.hub against real torch, offline: file:// URLs, a temporary TORCH_HOME, local and cached hubconf repos."""
import hashlib
import os
import zipfile

import pytest
import torch

import mstorch

BOTH = pytest.mark.parametrize("T", [torch, mstorch], ids=["torch", "mstorch"])


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    for mod in (torch.hub, mstorch.hub):
        monkeypatch.setattr(mod, "_hub_dir", None)
    return tmp_path


def _checkpoint(tmp_path, name="weights.pth"):
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    path = src / name
    torch.save({"w": torch.arange(6.0).reshape(2, 3), "b": torch.tensor([1, 2], dtype=torch.int64)}, path)
    return path


def _raises(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


@BOTH
def test_get_dir_layout(T, tmp_path, monkeypatch):
    assert T.hub.get_dir() == str(tmp_path / "home" / "hub")
    monkeypatch.delenv("TORCH_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert T.hub.get_dir() == str(tmp_path / "xdg" / "torch" / "hub")
    T.hub.set_dir("~/somewhere")
    assert T.hub.get_dir() == os.path.expanduser("~/somewhere")


def test_same_public_names():
    assert sorted(mstorch.hub.__all__) == sorted(torch.hub.__all__)


@BOTH
def test_download_url_to_file_and_hash(T, tmp_path):
    src = _checkpoint(tmp_path)
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    dst = tmp_path / "out" / "a.pth"
    dst.parent.mkdir()
    T.hub.download_url_to_file(src.as_uri(), str(dst), hash_prefix=digest[:10], progress=False)
    assert dst.read_bytes() == src.read_bytes()
    bad = tmp_path / "out" / "b.pth"
    err = _raises(lambda: T.hub.download_url_to_file(src.as_uri(), str(bad), hash_prefix="0000", progress=False))
    assert err == (RuntimeError, f'invalid hash value (expected "0000", got "{digest}")')
    assert sorted(os.listdir(dst.parent)) == ["a.pth"]  # no partial file left behind


def _load_both(fn):
    ref, got = fn(torch), fn(mstorch)
    assert sorted(ref) == sorted(got)
    for k in ref:
        assert got[k].dtype == getattr(mstorch, str(ref[k].dtype).split(".")[1])
        assert got[k].tolist() == ref[k].tolist()
    return ref, got


def test_load_state_dict_from_url_cache(tmp_path):
    src = _checkpoint(tmp_path)
    _load_both(lambda T: T.hub.load_state_dict_from_url(src.as_uri(), progress=False))
    assert os.listdir(tmp_path / "home" / "hub" / "checkpoints") == ["weights.pth"]
    src.unlink()  # the second call reads the cache
    _load_both(lambda T: T.hub.load_state_dict_from_url(src.as_uri(), progress=False, map_location="cpu"))


def test_load_state_dict_from_url_model_dir_file_name(tmp_path):
    src = _checkpoint(tmp_path)
    for T in (torch, mstorch):
        T.hub.load_state_dict_from_url(src.as_uri(), model_dir=str(tmp_path / T.__name__), progress=False,
                                       file_name="renamed.pt", weights_only=True)
        assert os.listdir(tmp_path / T.__name__) == ["renamed.pt"]


def test_load_state_dict_check_hash(tmp_path):
    good = _checkpoint(tmp_path)
    digest = hashlib.sha256(good.read_bytes()).hexdigest()
    named = good.with_name(f"net-{digest[:8]}.pth")
    good.rename(named)
    _load_both(lambda T: T.hub.load_state_dict_from_url(named.as_uri(), model_dir=str(tmp_path / T.__name__),
                                                        check_hash=True, progress=False))
    wrong = named.with_name("net-abcdef12.pth")
    named.rename(wrong)
    errs = [_raises(lambda: T.hub.load_state_dict_from_url(wrong.as_uri(), check_hash=True, progress=False))
            for T in (torch, mstorch)]
    assert errs[0] == errs[1] and errs[0][0] is RuntimeError and "invalid hash value" in errs[0][1]
    assert not os.listdir(tmp_path / "home" / "hub" / "checkpoints")


@pytest.mark.filterwarnings("ignore:Falling back to the old format:FutureWarning")
def test_legacy_zip_wrapped_checkpoint(tmp_path):
    inner = _checkpoint(tmp_path, "inner.pth")
    wrapped = tmp_path / "src" / "wrapped.zip"
    with zipfile.ZipFile(wrapped, "w") as zf:
        zf.write(inner, "inner.pth")
    for T in (torch, mstorch):
        with pytest.warns(FutureWarning, match="Falling back to the old format"):
            T.hub.load_state_dict_from_url(wrapped.as_uri(), model_dir=str(tmp_path / T.__name__), progress=False)
        assert sorted(os.listdir(tmp_path / T.__name__)) == ["inner.pth", "wrapped.zip"]
    _load_both(lambda T: T.hub.load_state_dict_from_url(wrapped.as_uri(), model_dir=str(tmp_path / T.__name__),
                                                        progress=False))


@pytest.mark.filterwarnings("ignore:Falling back to the old format:FutureWarning")
def test_zip_slip_refused(tmp_path):
    evil = tmp_path / "src" / "evil.zip"
    evil.parent.mkdir()
    with zipfile.ZipFile(evil, "w") as zf:
        zf.writestr("../escape.pth", b"x")
    errs = [_raises(lambda: T.hub.load_state_dict_from_url(evil.as_uri(), model_dir=str(tmp_path / T.__name__),
                                                           progress=False)) for T in (torch, mstorch)]
    assert errs[0] == errs[1] == (ValueError, "Archive entry contains directory traversal: ../escape.pth")


HUBCONF = '''
dependencies = {deps}


def adder(a, b=2):
    """Adds two numbers."""
    return a + b


def _hidden():
    return 0


not_callable = 3
'''


def _repo(path, deps="[]"):
    path.mkdir(parents=True)
    (path / "hubconf.py").write_text(HUBCONF.format(deps=deps))
    return str(path)


def test_load_local(tmp_path):
    repo = _repo(tmp_path / "repo")
    for T in (torch, mstorch):
        assert T.hub.load(repo, "adder", 1, b=5, source="local") == 6
    cases = [lambda T: T.hub.load(repo, "missing", source="local"),
             lambda T: T.hub.load(repo, "not_callable", source="local"),
             lambda T: T.hub.load(repo, 3, source="local"),
             lambda T: T.hub.load(repo, "adder", source="svn"),
             lambda T: T.hub.load(_repo(tmp_path / f"deps_{T.__name__}", '["no_such_pkg_xyz"]'), "adder", 1,
                                  source="local")]
    for case in cases:
        assert _raises(lambda: case(torch)) == _raises(lambda: case(mstorch))


def test_github_repo_from_cache(tmp_path):
    # a repository already in the hub cache needs no network (the ref is given, validation skipped by the cache)
    hub = tmp_path / "home" / "hub"
    _repo(hub / "someone_proj_main")
    results = {}
    for T in (torch, mstorch):
        (hub / "trusted_list").unlink(missing_ok=True)
        got = (T.hub.load("someone/proj:main", "adder", 3, trust_repo=True, verbose=False),
               T.hub.list("someone/proj:main", trust_repo=True),
               T.hub.help("someone/proj:main", "adder", trust_repo=True),
               (hub / "trusted_list").read_text())
        results[T.__name__] = got
    assert results["torch"] == results["mstorch"]
    assert results["mstorch"][0] == 5 and "adder" in results["mstorch"][1]
