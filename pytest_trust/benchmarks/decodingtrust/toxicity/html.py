"""The HTML report's toxicity section: each prompt's maximum toxicity over its samples, per prompt set and
system prompt, and over the system-prompt study's templates."""

from __future__ import annotations

from collections import defaultdict

import plotly.graph_objects as go

from ....report.html_parts import escape, figure, metric_table, scorer_text
from ...spec import ReportView
from .prompts import PROMPT_SETS, SYSTEM_OF_TEMPLATE

STUDY = "system-prompt study"  # where the study's maxima are kept, by template (its prompts are the toxic ones)

Maxima = dict[tuple[str, str], list[tuple[float, str]]]  # (prompt set, system prompt) -> (maximum, item id) per prompt


def section(report: ReportView) -> str:
    """The section: what a point is and who scored it, the figures of the prompt sets and of the study, then the
    metrics but the study's per-template ones (``toxicity.system_prompts.*``)."""
    maxima = _maxima(report.entries)
    if not maxima:
        return '<p class="empty">Toxicity did not run.</p>'
    metrics = report.metrics
    parts = ["<p>Each point is one prompt's maximum toxicity over its samples; the expected maximum toxicity (EMT) "
             "is their mean. Scored by " + escape(", ".join(_scorers(report)) or "?") + ".</p>"]
    parts += [drawn for drawn in (_prompt_sets_figure(maxima), _study_figure(maxima)) if drawn]
    keys = [k for k in metrics if k.startswith("toxicity.") and not k.startswith("toxicity.system_prompts.")]
    parts.append(metric_table(metrics, keys))
    return "".join(parts)


def _maxima(entries: list[dict]) -> Maxima:
    """Each scored prompt's maximum toxicity over its samples, by prompt set and system prompt (the study's by
    template)."""
    maxima: Maxima = defaultdict(list)
    for item in entries:
        facts = item.get("facts") or {}
        if item.get("benchmark") != "toxicity" or not facts.get("toxicity"):
            continue
        scores = [-1.0 if s is None else s for s in facts["toxicity"]]  # unscored counts -1, as upstream
        if facts.get("study"):
            where = (STUDY, f"t{facts['template']:02d}")
        else:
            where = (facts["set"], SYSTEM_OF_TEMPLATE.get(facts["template"], str(facts["template"])))
        maxima[where].append((max(scores), item.get("id", "")))
    return maxima


def _scorers(report: ReportView) -> list[str]:
    """The scorers named by the run; an older report's from its ``toxicity.scorer.*`` metrics."""
    named = [scorer_text(s) for s in report.run.get("scorers") or () if s.get("benchmark") == "toxicity"]
    return named or [k.rsplit(".", 1)[1] for k in report.metrics if k.startswith("toxicity.scorer.")]


def _prompt_sets_figure(maxima: Maxima) -> str | None:
    """A box per prompt set and system prompt (benign, adversarial), its mean the EMT; None when none ran."""
    main = [(s.name, p) for s in PROMPT_SETS for p in ("benign", "adversarial") if (s.name, p) in maxima]
    if not main:
        return None
    fig = go.Figure()
    for system in ("benign", "adversarial"):
        points = [(set_name, value, item_id) for set_name, p in main if p == system
                  for value, item_id in maxima[(set_name, p)]]
        fig.add_trace(go.Box(x=[x for x, _, _ in points], y=[y for _, y, _ in points], name=f"{system} system prompt",
                             boxpoints="all", jitter=0.4, pointpos=0, boxmean=True, text=[i for _, _, i in points],
                             hovertemplate="%{text}: %{y:.3f}<extra></extra>"))
    fig.update_layout(title="Per prompt set and system prompt (box mean = EMT)", boxmode="group",
                      yaxis={"range": [-0.02, 1.02], "title": "maximum toxicity"})
    return figure(fig, 380)


def _study_figure(maxima: Maxima) -> str | None:
    """The system-prompt study: a box per template on the toxic prompts; None when the study did not run."""
    study = sorted(key for key in maxima if key[0] == STUDY)
    if not study:
        return None
    fig = go.Figure(go.Box(x=[t for _, t in study for _ in maxima[(STUDY, t)]],
                           y=[v for key in study for v, _ in maxima[key]],
                           text=[i for key in study for _, i in maxima[key]], boxpoints="all", pointpos=0,
                           jitter=0.3, marker_color="#c06a2b", name="toxic prompts",
                           hovertemplate="%{text}: %{y:.3f}<extra></extra>"))
    fig.update_layout(title="System-prompt study: 33 templates on the toxic prompts",
                      yaxis={"range": [-0.02, 1.02], "title": "maximum toxicity"})
    return figure(fig, 340)
