"""Data commands: ``graphsweep generate KIND`` and ``graphsweep datasets show|validate|import``.

``generate`` has one subcommand per entry of ``graphsweep.generators.GENERATORS``, built from the
generator's declared ``Param``s (``--n``, ``--count``, ``--edge-factor``...): values arrive as
strings and go through ``Param.coerce``, so a bad value is a ``ParameterError`` naming the
parameter, and every count takes the one size syntax (1M, 2^20, 1e6, 1_000_000).
``--workers W`` > 0 runs the part tasks on a LocalCluster of W worker processes started for the
run (closed after it; trouble closing it is a warning: the dataset is written by then); 0 runs
them in this process.  Interrupted (Ctrl-C, SIGTERM), it removes the partial dataset and says so
in one line.  Before anything is written the output path is checked, the disk and memory the
dataset needs are compared with what there is, and partial datasets that killed writers left
beside it are removed.  Progress goes to stderr (whole lines when stderr is not a terminal; none
with ``--no-progress``), the summary (path, rows, seconds, rows/s, MB/s of Parquet written) to
stdout.
"""

import json
import logging
import time
from contextlib import contextmanager
from pathlib import Path

import click

from graphsweep.core import capacity, gpu
from graphsweep.core.errors import DatasetError
from graphsweep.datasets.format import read_manifest
from graphsweep.datasets.importers import FORMATS, import_file
from graphsweep.core.params import Param
from graphsweep.datasets.validate import validate
from graphsweep.datasets.writer import remove_stale_partials
from graphsweep.generators import GENERATORS, generate as generate_dataset

from .cluster import HeldSignals, IgnoreInterrupts, closing
from .paths import check_writable

_SEED = Param(1, int, minimum=0, help="seed of every random draw")
_ROWS = Param(1 << 20, int, minimum=1)
# An import holds the text and its parsed columns at once; its dataset is at most the text's size
# again (ids as 4-8 binary bytes instead of their digits and separators).
IMPORT_MEMORY_PER_FILE_BYTE = 8
IMPORT_DISK_PER_FILE_BYTE = 1
# How the importer arrived at n (the manifest's stats.n_from), as the import command says it.
N_FROM = {"header": "as the file's header gives it",
          "largest id + 1": "inferred as the largest vertex id + 1 (ids keep their values; "
                            "--relabel numbers the ids that occur densely from 0)",
          "distinct ids": "the distinct vertex ids, numbered densely from 0 (--relabel)"}


def parse_rows(name: str, text: str) -> int:
    """A row count >= 1 in the one size syntax (1048576, 1M, 2^20, 1e6, 1_000_000)."""
    return _ROWS.coerce(name, str(text))


def _prepare_out(out: Path) -> Path:
    """Check that ``out`` can be written, and remove what killed writers left beside it."""
    out = check_writable(out, "--out")
    if out.parent.is_dir():
        for stale in remove_stale_partials(out.parent):
            click.echo(f"removed {stale}, left by a writer that is gone", err=True)
    return out


def _parquet_bytes(path: Path, manifest: dict) -> int:
    total = 0
    for part in manifest["parts"]:
        file = path / part["path"]
        if not file.is_file():
            raise DatasetError(f"{file}: part listed in the manifest is missing")
        total += file.stat().st_size
    return total


@contextmanager
def _client(workers: int):
    """A distributed Client on a LocalCluster of ``workers`` processes, or None for 0."""
    if workers == 0:
        yield None
        return
    from distributed import Client, LocalCluster
    with HeldSignals() as held:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                               silence_logs=logging.CRITICAL)
    with closing(cluster, "the generation's cluster"), closing(Client(cluster), "the generation's client") as client:
        held.deliver()
        client.register_plugin(IgnoreInterrupts())
        click.echo(f"dask: {workers} workers, dashboard {cluster.dashboard_link}", err=True)
        yield client


class _KindGroup(click.Group):
    """A group whose unknown subcommand is a usage error that lists the kinds."""

    def resolve_command(self, ctx, args):
        if args and not args[0].startswith("-") and args[0] not in self.commands:
            ctx.fail(f"unknown KIND {args[0]!r}; kinds: {', '.join(self.commands)}")
        return super().resolve_command(ctx, args)


@click.group(cls=_KindGroup, context_settings={"show_default": True})
def generate():
    """Generate a dataset of KIND (see each KIND's --help)."""


def _generate_command(name: str, generator) -> click.Command:
    options = [click.Option([f"--{param.replace('_', '-')}", param], type=str,
                            default=str(spec.default), help=spec.help)
               for param, spec in generator.params.items()]
    options += [
        click.Option(["--out"], required=True, type=click.Path(path_type=Path),
                     help="dataset directory to create"),
        click.Option(["--seed"], type=str, default="1", help=_SEED.help),
        click.Option(["--part-rows"], type=str, default="1048576",
                     help="rows per Parquet part (1M, 3M... accepted)"),
        click.Option(["--workers"], type=click.IntRange(min=0), default=0,
                     help="0: run the parts in this process; W: on a LocalCluster of W processes"),
        click.Option(["--backend"], type=click.Choice(gpu.BACKENDS), default="cpu",
                     help="where the arrays are computed (gpu: list kinds, with CuPy; auto: the GPU when "
                          "one is usable and the kind has a GPU path)"),
        click.Option(["--overwrite"], is_flag=True, help="replace an existing dataset at --out"),
        click.Option(["--no-progress"], is_flag=True, help="no progress lines on stderr"),
    ]

    def run(out, seed, part_rows, workers, backend, overwrite, no_progress, **given):
        seed = _SEED.coerce("seed", seed)
        rows_per_part = parse_rows("part_rows", part_rows)
        out = _prepare_out(out)
        start = time.perf_counter()
        try:
            with _client(workers) as client:
                path = generate_dataset(name, out, seed=seed, params=given, part_rows=rows_per_part,
                                        client=client, backend=backend, overwrite=overwrite,
                                        progress=not no_progress)
        except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: the generator removed its partial dataset
            raise type(exc)(f"partial dataset removed, {out} left as it was") from None
        seconds = time.perf_counter() - start
        manifest = read_manifest(path)
        rows = manifest["n"] if manifest["kind"] == "list" else manifest["m"]
        unit = "elements" if manifest["kind"] == "list" else "edges"
        size = _parquet_bytes(path, manifest)
        click.echo(f"{path}: {manifest['kind']} n = {manifest['n']:,}"
                   + (f", m = {manifest['m']:,}" if manifest["kind"] == "graph" else "")
                   + f", {len(manifest['parts'])} parts, {size / 1e6:.1f} MB")
        click.echo(f"{rows:,} {unit} in {seconds:.2f} s: {rows / seconds / 1e6:.2f} M {unit}/s, "
                   f"{size / seconds / 1e6:.1f} MB/s of Parquet")

    return click.Command(name, params=options, callback=run, help=generator.summary,
                         short_help=generator.summary)


for _name, _generator in GENERATORS.items():
    generate.add_command(_generate_command(_name, _generator))


@click.group(context_settings={"show_default": True})
def datasets():
    """Inspect, validate and import datasets."""


@datasets.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="print the whole manifest as JSON")
def show(path, as_json):
    """Summarise the dataset at PATH from its manifest."""
    manifest = read_manifest(path)
    if as_json:
        click.echo(json.dumps(manifest, indent=1))
        return
    origin = manifest.get("generator") or manifest.get("source")
    lines = [f"{path}: {manifest['kind']}, n = {manifest['n']:,}"
             + (f", m = {manifest['m']:,}, {'directed' if manifest['directed'] else 'undirected'}, "
                f"{'weighted' if manifest['weighted'] else 'unweighted'}" if manifest["kind"] == "graph" else ""),
             f"  index dtype {manifest['index_dtype']}, {len(manifest['parts'])} parts, "
             f"{_parquet_bytes(path, manifest) / 1e6:.1f} MB, created {manifest.get('created', '?')}",
             f"  {'generator' if 'generator' in manifest else 'source'}: {json.dumps(origin)}"]
    if manifest.get("stats"):
        lines.append(f"  stats: {json.dumps(manifest['stats'])}")
    click.echo("\n".join(lines))


@datasets.command("validate")
@click.argument("path", type=click.Path(path_type=Path))
def validate_command(path):
    """Check the dataset at PATH deeply: checksums, schema, rows, value ranges, list structure."""
    summary = validate(path)
    details = ", ".join(f"{k} = {v}" for k, v in summary.items() if k not in ("path", "kind"))
    click.echo(f"OK {summary['path']}: {summary['kind']}, {details}")


@datasets.command("import")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(FORMATS))
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--out", required=True, type=click.Path(path_type=Path), help="dataset directory to create")
@click.option("--part-rows", type=str, default="1048576", help="rows per Parquet part (1M, 3M... accepted)")
@click.option("--overwrite", is_flag=True, help="replace an existing dataset at --out")
@click.option("--directed/--undirected", default=None,
              help="override the format's default (edge lists undirected, gr directed, mtx by symmetry)")
@click.option("--base", type=click.Choice(["0", "1"]), default="0", help="first vertex id of edge lists")
@click.option("--relabel", is_flag=True, help="number the ids that occur densely from 0")
@click.option("--round-weights", is_flag=True, help="round real mtx weights to integers")
def import_command(fmt, file, out, part_rows, overwrite, directed, base, relabel, round_weights):
    """Import FILE (edgelist, wel, gr or mtx) as a dataset."""
    rows_per_part = parse_rows("part_rows", part_rows)
    out = _prepare_out(out)
    if file.is_file():
        size = file.stat().st_size
        where = capacity.nearest_existing(out)
        capacity.check(f"import {file}", [
            (f"disk under {where}", size * IMPORT_DISK_PER_FILE_BYTE, capacity.free_disk(where)),
            ("host memory", size * IMPORT_MEMORY_PER_FILE_BYTE, capacity.available_memory())])
    start = time.perf_counter()
    path = import_file(fmt, file, out, part_rows=rows_per_part, overwrite=overwrite,
                       directed=directed, base=int(base), relabel=relabel, round_weights=round_weights)
    manifest = read_manifest(path)
    click.echo(f"{path}: graph n = {manifest['n']:,}, m = {manifest['m']:,}, "
               f"{'directed' if manifest['directed'] else 'undirected'}, "
               f"{'weighted' if manifest['weighted'] else 'unweighted'} "
               f"({time.perf_counter() - start:.2f} s)")
    click.echo(f"n = {manifest['n']:,}: {N_FROM[manifest['stats']['n_from']]}")

