"""The ``graphsweep`` command line: a thin click group over the library.

Each area keeps its commands in its own module (cli_data, cli_kernel, cli_sweep); this module
only assembles them and turns every ``GraphsweepError`` into one line on stderr and exit code 2.
"""

import sys
from importlib.metadata import version

import click

from graphsweep.datasets.errors import GraphsweepError

from .cli_data import datasets, generate
from .cli_kernel import kernel
from .cli_sweep import reduce, report, run, status, submit


@click.group(context_settings={"help_option_names": ["-h", "--help"], "show_default": True})
@click.version_option(version("graphsweep"), prog_name="graphsweep")
def cli():
    """graphsweep: generate graph datasets, run GPU kernels over them on Dask, reduce the results."""


for command in (generate, datasets, kernel, run, submit, status, reduce, report):
    cli.add_command(command)


def main(argv=None):
    try:
        rc = cli.main(args=argv, prog_name="graphsweep", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("graphsweep: interrupted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except GraphsweepError as exc:
        click.echo(f"graphsweep: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("graphsweep: interrupted", err=True)
        sys.exit(130)
    sys.exit(rc if isinstance(rc, int) else 0)


if __name__ == "__main__":
    main()
