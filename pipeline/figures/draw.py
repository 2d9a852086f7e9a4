"""What the figures share of matplotlib: a figure of one axis or of panels, legends, colours per
variant and per phase, line styles per dataset family."""

from matplotlib import colormaps
from matplotlib.figure import Figure

MAX_PANELS = 6
STYLES = ("-", "--", ":", "-.")


def figure(title: str, xlabel: str, ylabel: str, width: float = 7.5, height: float = 4.6):
    fig = Figure(figsize=(width, height))
    ax = fig.add_subplot()
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    return fig, ax


def panels(count: int, title: str, width: float = 11.0):
    """A figure of ``count`` subplots (at most MAX_PANELS), two per row."""
    count = min(count, MAX_PANELS)
    cols = 1 if count == 1 else 2
    rows = -(-count // cols)
    fig = Figure(figsize=(width if cols > 1 else 7.5, 3.6 * rows + 0.6))
    fig.suptitle(title, fontsize=10)
    axes = [fig.add_subplot(rows, cols, i + 1) for i in range(count)]
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
    return fig, axes


def legend(ax, **kw):
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, **kw)


def legend_below(fig, axes):
    """One legend for ``axes`` below them, each label once."""
    handles, names = {}, []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in handles:
                handles[lab] = h
                names.append(lab)
    if names:
        fig.legend([handles[n] for n in names], names, loc="lower center", ncols=min(3, len(names)), fontsize=7,
                   bbox_to_anchor=(0.5, 0.0))
        rows = -(-len(names) // 3)
        fig.set_size_inches(fig.get_size_inches()[0], fig.get_size_inches()[1] + 0.22 * rows)
        fig.tight_layout(rect=(0, 0.05 + 0.035 * rows, 1, 0.97))


def log2x(ax):
    ax.set_xscale("log", base=2)


def variant_colours(variants_) -> dict:
    names = list(dict.fromkeys(variants_))
    palette = colormaps["tab10"].colors if len(names) <= 10 else colormaps["tab20"].colors
    return {v: palette[i % len(palette)] for i, v in enumerate(names)}


def family_panels(curves, title: str):
    """A panel per dataset family (at most MAX_PANELS) for ``curves`` keyed (variant, family), one
    colour per variant across panels: (figure, {family: axis}, {variant: colour})."""
    fams = list(dict.fromkeys(f for (_, f), _ in curves))[:MAX_PANELS]
    fig, axes = panels(len(fams), title)
    colours = variant_colours(v for (v, _), _ in curves)
    return fig, dict(zip(fams, axes)), colours


def phase_colours(phases) -> dict:
    """A distinct colour per phase however many there are: tab20's pairs up to 20, beyond that
    evenly spaced hues (matplotlib's default cycle repeats after 10)."""
    phases = list(dict.fromkeys(phases))
    if len(phases) <= 20:
        palette = colormaps["tab20"].colors
        # Dark shades first, then the light ones, so up to 10 phases look like the default cycle.
        order = [palette[i] for i in range(0, 20, 2)] + [palette[i] for i in range(1, 20, 2)]
        return dict(zip(phases, order))
    hues = colormaps["turbo"]
    return {phase: hues(i / (len(phases) - 1)) for i, phase in enumerate(phases)}


def phase_lines(ax, rows, x: str, y: str, colours: dict) -> dict:
    """A line per phase (its colour, in the legend) and family (its line style); returns the
    styles by family, for ``styles_note``."""
    styles = {f: STYLES[i % len(STYLES)] for i, f in enumerate(dict.fromkeys(rows["family"]))}
    labelled = set()
    for (phase, family), curve in rows.groupby(["phase", "family"], sort=False):
        curve = curve.groupby(x)[y].mean().sort_index()
        label = None if phase in labelled else str(phase)
        labelled.add(phase)
        ax.plot(curve.index, curve.values, marker="o", ms=2.5, color=colours.get(phase), ls=styles[family],
                label=label)
    return styles


def styles_note(styles: dict) -> str:
    """Which line style is which family (for a panel's title)."""
    names = {"-": "solid", "--": "dashed", ":": "dotted", "-.": "dash-dot"}
    return "; ".join(f"{names[st]}: {fam}" for fam, st in styles.items()) if len(styles) > 1 else \
        next(iter(styles), "")
