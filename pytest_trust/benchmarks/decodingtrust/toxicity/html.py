"""The HTML report's toxicity section: each prompt's maximum toxicity over its samples, per prompt set and
system prompt, and over the system-prompt study's templates."""

from __future__ import annotations

from collections import defaultdict

import plotly.graph_objects as go

from ....report.html_parts import escape, figure, metric_table, scorer_text
from ...spec import ReportView
from .prompts import PROMPT_SETS, SYSTEM_OF_TEMPLATE


def section(report: ReportView) -> str:
    maxima: dict[tuple[str, str], list[tuple[float, str]]] = defaultdict(list)
    for item in report.entries:
        facts = item.get("facts") or {}
        if item.get("benchmark") != "toxicity" or not facts.get("toxicity"):
            continue
        scores = [-1.0 if s is None else s for s in facts["toxicity"]]  # unscored counts -1, as upstream
        if facts.get("study"):
            where = ("system-prompt study", f"t{facts['template']:02d}")
        else:
            where = (facts["set"], SYSTEM_OF_TEMPLATE.get(facts["template"], str(facts["template"])))
        maxima[where].append((max(scores), item.get("id", "")))
    metrics = report.metrics
    if not maxima:
        return '<p class="empty">Toxicity did not run.</p>'
    named = [scorer_text(s) for s in report.run.get("scorers") or () if s.get("benchmark") == "toxicity"]
    named = named or [k.rsplit(".", 1)[1] for k in metrics if k.startswith("toxicity.scorer.")]  # an older report
    parts = ["<p>Each point is one prompt's maximum toxicity over its samples; the expected maximum toxicity (EMT) "
             "is their mean. Scored by " + escape(", ".join(named) or "?") + ".</p>"]
    main = [(s.name, p) for s in PROMPT_SETS for p in ("benign", "adversarial") if (s.name, p) in maxima]
    if main:
        fig = go.Figure()
        for system in ("benign", "adversarial"):
            xs, ys, ids = [], [], []
            for set_name, p in main:
                if p == system:
                    for value, item_id in maxima[(set_name, p)]:
                        xs.append(set_name)
                        ys.append(value)
                        ids.append(item_id)
            fig.add_trace(go.Box(x=xs, y=ys, name=f"{system} system prompt", boxpoints="all", jitter=0.4,
                                 pointpos=0, boxmean=True, text=ids, hovertemplate="%{text}: %{y:.3f}<extra></extra>"))
        fig.update_layout(title="Per prompt set and system prompt (box mean = EMT)", boxmode="group",
                          yaxis={"range": [-0.02, 1.02], "title": "maximum toxicity"})
        parts.append(figure(fig, 380))
    study = sorted(key for key in maxima if key[0] == "system-prompt study")
    if study:
        fig = go.Figure(go.Box(x=[t for _, t in study for _ in maxima[("system-prompt study", t)]],
                               y=[v for key in study for v, _ in maxima[key]],
                               text=[i for key in study for _, i in maxima[key]], boxpoints="all", pointpos=0,
                               jitter=0.3, marker_color="#c06a2b", name="toxic prompts",
                               hovertemplate="%{text}: %{y:.3f}<extra></extra>"))
        fig.update_layout(title="System-prompt study: 33 templates on the toxic prompts",
                          yaxis={"range": [-0.02, 1.02], "title": "maximum toxicity"})
        parts.append(figure(fig, 340))
    keys = [k for k in metrics if k.startswith("toxicity.") and not k.startswith("toxicity.system_prompts.")]
    parts.append(metric_table(metrics, keys))
    return "".join(parts)
