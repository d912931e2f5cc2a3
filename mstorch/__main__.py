"""``python -m mstorch run SCRIPT [ARGS...]`` — run an unmodified PyTorch script on mstorch.
``python -m mstorch alias on|off|status`` — make ``import torch`` resolve to mstorch in this whole environment.
``python -m mstorch scan PATH`` — list the torch APIs a file or project uses and mstorch's support for each.
"""
import os
import runpy
import sys
import traceback

USAGE = ("usage: python -m mstorch run SCRIPT [ARGS...]\n"
         "       python -m mstorch run -m MODULE [ARGS...]\n"
         "       python -m mstorch alias on|off|status\n"
         "       python -m mstorch scan PATH [--format text|markdown|html] [--output FILE]")


def _run(argv):
    if not argv:
        print(USAGE, file=sys.stderr)
        return 2
    from ._compat import alias
    alias.install()
    if argv[0] == "-m":
        if len(argv) < 2:
            print(USAGE, file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        sys.path.insert(0, os.getcwd())
        runner = lambda: runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        script = argv[0]
        if not os.path.exists(script):
            print(f"{sys.executable}: can't open file {os.path.abspath(script)!r}: [Errno 2] No such file or "
                  "directory", file=sys.stderr)
            return 2
        sys.argv = list(argv)
        sys.path[0] = os.path.dirname(os.path.abspath(script))
        runner = lambda: runpy.run_path(script, run_name="__main__")
    try:
        runner()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - print as python would, without our frames
        tb = exc.__traceback__
        while tb is not None and _is_launcher_frame(tb.tb_frame.f_code.co_filename):
            tb = tb.tb_next
        traceback.print_exception(type(exc), exc, tb)
        return 1
    return 0


def _is_launcher_frame(filename):
    return filename == __file__ or filename.endswith(("runpy.py", "<frozen runpy>"))


def _alias(argv):
    from ._compat import pth
    cmd = argv[0] if argv else "status"
    if cmd == "on":
        print(f"mstorch: 'import torch' now resolves to mstorch in this environment ({pth.enable()}); "
              "undo with: python -m mstorch alias off (or MSTORCH_DISABLE_ALIAS=1 for one process)")
    elif cmd == "off":
        path = pth.disable()
        print(f"mstorch: alias removed ({path})" if path else "mstorch: alias was not installed")
    elif cmd == "status":
        print("on" if pth.is_enabled() else "off")
    else:
        print(USAGE, file=sys.stderr)
        return 2
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "run":
        return _run(rest)
    if cmd == "alias":
        return _alias(rest)
    if cmd == "scan":
        from ._scan import main as scan_main
        return scan_main(rest)
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
