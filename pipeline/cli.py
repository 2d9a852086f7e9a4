"""The ``graphsweep`` command line: a thin click group over the library.

Each area keeps its commands in its own module (cli_data, cli_kernel, cli_sweep); this module
only assembles them and turns every ``GraphsweepError`` — and any OS error (a path under a file,
a read-only folder, a full disk) — into one line on stderr and exit code 2.  SIGTERM (what
SLURM, cron and CI timeouts send) is handled like Ctrl-C: the command unwinds, removing what it
had half written, and exits 143 (130 for Ctrl-C), with one line and no Dask log records after it.
"""

import atexit
import os
import signal
import sys
import threading
from importlib.metadata import version

import click

from graphsweep.core.errors import GraphsweepError


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so that it unwinds like an interrupt."""


def _terminate(signum, frame):
    from . import cluster    # here: this module imports no Dask (see main)
    cluster.quiet_dask()
    raise Terminated()


def _interrupt(signum, frame):
    # Dask kept quiet before the interrupt unwinds through it: a wait on its event loop cancelled
    # there logs a traceback from that loop's thread (distributed.utils.sync).
    from . import cluster
    cluster.quiet_dask()
    raise KeyboardInterrupt()


@click.group(context_settings={"help_option_names": ["-h", "--help"], "show_default": True})
@click.version_option(version("graphsweep"), prog_name="graphsweep")
def cli():
    """graphsweep: generate graph datasets, run GPU kernels over them on Dask, reduce the results.

    \b
    Exit codes of every command:
      0    done
      2    bad input, or refused before any work (one line on stderr says why)
      130  interrupted (Ctrl-C); 143 terminated (SIGTERM)
    run, status, kernel and compare have more (see their --help).
    """


def _add_commands() -> None:
    """The commands, imported when ``main`` runs rather than with this module (``main`` says why)."""
    from .cli_data import datasets, generate
    from .cli_history import compare, history, results
    from .cli_kernel import kernel
    from .cli_sweep import reduce, report, run, status, submit
    for command in (generate, datasets, kernel, run, submit, status, reduce, report, compare, history, results):
        cli.add_command(command)


def os_error_line(exc: OSError) -> str:
    """'PATH: reason' (both paths of a rename) for an OSError."""
    where = ": ".join(str(f) for f in (exc.filename, exc.filename2) if f is not None)
    reason = exc.strerror or str(exc) or type(exc).__name__
    return f"{where}: {reason}" if where else reason


def _interrupted(exc: BaseException | None, whole_process: bool):
    """One line (with what the command cleaned up, when it says) and 143 for SIGTERM, 130 for Ctrl-C.
    ``whole_process``: ``main`` is the process's own command (no ``argv`` given), which then ends
    here — its exit handlers run (local workers closed), not the interpreter's finalization, where
    a native thread an extension left (pyarrow's, Numba's) can abort the process with a fatal
    error after the one line (seen once in three Ctrl-C's of a partitioned CPU kernel)."""
    terminated = isinstance(exc, Terminated)
    done = f"; {exc}" if isinstance(exc, KeyboardInterrupt) and str(exc) else ""
    click.echo(f"graphsweep: {'terminated' if terminated else 'interrupted'}{done}", err=True)
    code = 143 if terminated else 130
    if whole_process:
        sys.stdout.flush()
        sys.stderr.flush()
        atexit._run_exitfuncs()
        os._exit(code)
    sys.exit(code)


def main(argv=None):
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = {}
    if in_main_thread:
        previous[signal.SIGTERM] = signal.signal(signal.SIGTERM, _terminate)
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:   # not where Ctrl-C is ignored (nohup, &)
            previous[signal.SIGINT] = signal.signal(signal.SIGINT, _interrupt)
    try:
        # Imported here, not with this module: importing Dask reads its config files, and a malformed
        # one is one line (config's ParameterError), not a traceback from the import.
        from . import config
        _add_commands()
        config.check()      # a misspelt setting is one line from any command, not a surprise inside one
        rc = cli.main(args=argv, prog_name="graphsweep", standalone_mode=False)
    except click.exceptions.Abort as exc:  # click's form of KeyboardInterrupt
        _interrupted(exc.__cause__ or exc.__context__, argv is None)
    except KeyboardInterrupt as exc:
        _interrupted(exc, argv is None)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except GraphsweepError as exc:
        click.echo(f"graphsweep: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except OSError as exc:
        click.echo(f"graphsweep: error: {os_error_line(exc)}", err=True)
        sys.exit(GraphsweepError.exit_code)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    sys.exit(rc if isinstance(rc, int) else 0)


if __name__ == "__main__":
    main()
