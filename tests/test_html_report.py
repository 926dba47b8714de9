"""The HTML report of the committed local-model replay (every benchmark), opened in a real headless Chromium.

It renders what a person sees: no console error, no network request, every section filled (figures drawn
by plotly.js, not just present in the file), every item openable. Hand-made reports check what single
figures draw: RuLES v1's charts only pass rates, the compare page's headline chart only what every run has. The screenshot is saved beside the
report; with TRUST_UPDATE_SCREENSHOT=1 it also replaces docs/report.png, which the README shows (a plain
test run leaves the repository's files alone). Debian's `chromium` is installed by .ci/run; without it the test skips, unless
PYTEST_TRUST_LIVE is set (CI), where it must run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import ROOT, mirror

from pytest_trust.report import compare, html
from pytest_trust.report.run_report import RunReport

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
MODEL = "smollm2-135m-instruct"
FILLED = ("run", "gates", "scorecard", "rules", "stereotype", "toxicity", "fairness", "items")
FIGURES = {"scorecard": 1, "rules": 3, "stereotype": 3, "toxicity": 2, "fairness": 1}
SCREENSHOT = ROOT / "docs" / "report.png"


def _need(what: bool, reason: str) -> None:
    if not what:
        if os.environ.get("PYTEST_TRUST_LIVE"):
            pytest.fail(f"{reason} (PYTEST_TRUST_LIVE is set: this test must run)")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path, float]:
    _need(Path(CHROMIUM).exists(), f"no {CHROMIUM}: apt-get install chromium")
    data = mirror()
    _need(data is not None, "no data mirror: set PYTEST_TRUST_DATA")
    out = tmp_path_factory.mktemp("html")
    command = [sys.executable, "-m", "pytest", "suites/", "--trust-recorded-only", "--block-network", "--model", MODEL,
               "-q", "--tb=no", "-p", "no:cacheprovider", "--trust-report", str(out / "R.json"),
               "--trust-html", str(out / "R.html")]
    done = subprocess.run(command, check=False, cwd=ROOT, env={**os.environ, "PYTEST_TRUST_DATA": str(data)},
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]
    page = out / "R.html"
    return json.loads((out / "R.json").read_text()), page, page.stat().st_size


@pytest.mark.slow
def test_html_report_of_the_full_replay_renders_in_chromium(replay, tmp_path):
    report, page_path, size = replay
    assert len(report["items"]) > 4000 and {i.get("benchmark") for i in report["items"]} >= {
        "rules", "stereotype", "toxicity", "fairness", "ood", "advglue", "adv_demonstration", "machine_ethics",
        "privacy"}
    # plotly.js's cartesian bundle (0.66 MB packed) and every item's line, verdict and conversation in one gzip'd
    # payload: 5.0 MB at 9,051 items (17.3 MB when plotly.js was whole and the items were HTML)
    assert size < 6_000_000, f"{size} bytes for {len(report['items'])} items: too big for every CI run's artifact"
    with opened(page_path, tmp_path) as page:
        for section in FILLED:
            assert page.locator(f"section#{section}").count() == 1, section
            assert page.locator(f"section#{section} .empty").count() == 0, f"{section} is empty"
        for section, count in FIGURES.items():
            figures = page.locator(f"section#{section} .js-plotly-plot .main-svg").count()
            assert figures >= count, f"{section}: {figures} figures drawn, {count} expected"
        assert page.locator("section#stereotype .heatmaplayer image").count() == 3  # one heatmap per prompt
        cells = {t: sum(1 for k in report["metrics"] if k.startswith(f"stereotype.{t}.cell."))
                 for t in ("benign", "untargeted", "targeted")}
        assert [int(n) for n in page.locator(".heatmap").evaluate_all("e => e.map(x => x.dataset.cells)")] == [
            cells["benign"], cells["untargeted"], cells["targeted"]]
        assert page.locator("section#gates tbody tr").count() == len(report["gates"])
        assert page.locator("details.item").count() == 0  # a scenario's items are built when it is opened
        page.evaluate("document.querySelectorAll('details.scenario').forEach(d => { d.open = true; })")
        page.wait_for_function(f"document.querySelectorAll('details.item').length == {len(report['items'])}")
        _open_one_failing_item(page, report)
        _conversation_shows_when_opened(page, report)
        _filter_finds_one_item(page, report)
        page.goto(page_path.as_uri(), wait_until="load")  # the top: counts, scorecard, gates
        page.set_viewport_size({"width": 1400, "height": 1300})
        page.evaluate("window.scrollTo(0, 0)")
        page.wait_for_timeout(500)
        page.screenshot(path=str(tmp_path / "report.png"))
    assert (tmp_path / "report.png").stat().st_size > 10_000
    if os.environ.get("TRUST_UPDATE_SCREENSHOT") == "1":
        shutil.copyfile(tmp_path / "report.png", SCREENSHOT)


def _open_one_failing_item(page, report: dict) -> None:
    """A link to an item (as the baseline section makes) opens its groups and shows its verdict reason."""
    index, item = next((i, it) for i, it in enumerate(report["items"])
                       if it.get("benchmark") == "toxicity" and it["outcome"] == "failed")
    page.evaluate(f"location.hash = 'item-{index}'")
    details = page.locator(f"#item-{index}")
    assert details.evaluate("d => d.open && d.parentElement.open && d.parentElement.parentElement.open")
    assert details.is_visible()
    assert item["verdict"]["reason"][:60] in details.inner_text()


def _conversation_shows_when_opened(page, report: dict) -> None:
    """An opened item draws its recorded conversation: the rules, the user's turns and the model's last reply."""
    index, item = next((i, it) for i, it in enumerate(report["items"])
                       if it.get("benchmark") == "rules" and it["facts"].get("turns", 0) >= 2 and it["facts"]["reply"])
    page.evaluate(f"location.hash = 'item-{index}'")
    conversation = page.locator(f"#item-{index} .conv")
    conversation.locator("pre").first.wait_for()
    speakers = conversation.locator(".who").all_inner_texts()
    assert speakers[0] == "system" and speakers.count("assistant") >= item["facts"]["turns"], speakers
    assert item["facts"]["reply"][:40].strip() in conversation.inner_text()


def _filter_finds_one_item(page, report: dict) -> None:
    item_id = next(it["id"] for it in report["items"] if it.get("benchmark") == "toxicity")
    page.fill("#filter", item_id)
    visible = page.locator("details.item:not(.hidden)").evaluate_all("e => e.map(x => x.id)")
    matching = [i for i, it in enumerate(report["items"]) if item_id in it.get("id", "")]
    assert visible == [f"item-{i}" for i in matching] and visible
    page.fill("#filter", "")


# --- single figures of hand-made reports -------------------------------------------------------------------------

def metric(value, low=None, high=None, n=20, kind="rate"):
    return {"value": value, "low": low, "high": high, "n": n, "kind": kind, "partial": None}


@contextmanager
def drawn(text: str, tmp_path: Path):
    """The page of ``text`` opened in Chromium once plotly.js has drawn its figures (``opened``)."""
    path = tmp_path / "page.html"
    path.write_text(text, encoding="utf-8")
    with opened(path, tmp_path) as page:
        yield page


@contextmanager
def opened(path: Path, tmp_path: Path):
    """The page at ``path`` opened in Chromium once plotly.js has drawn its figures; on leaving, no console
    error and no request out of the page were seen."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _need(False, "no playwright: pip install -e '.[dev]'")
    _need(Path(CHROMIUM).exists(), f"no {CHROMIUM}: apt-get install chromium")
    url = path.as_uri()
    problems, requests = [], []
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=CHROMIUM, args=FLAGS, headless=True,
            viewport={"width": 1400, "height": 1000})
        try:
            page = context.new_page()
            page.on("console", lambda m: m.type in ("error", "warning") and problems.append(f"{m.type}: {m.text}"))
            page.on("pageerror", lambda err: problems.append(f"page error: {err}"))
            page.on("request", lambda r: r.url != url and not r.url.startswith(("data:", "blob:"))
                    and requests.append(r.url))
            page.goto(url, wait_until="load")
            page.wait_for_function("document.querySelectorAll('.js-plotly-plot .main-svg').length > 0")
            yield page
            assert problems == [] and requests == []
        finally:
            context.close()


def figure(page, within: str, title: str) -> dict:
    """What the figure titled ``title`` shows: its category labels on each axis (sorted: a reversed axis lists
    them bottom up), its legend and its bars (one per value drawn; a missing value draws none)."""
    plot = page.locator(f"{within} .js-plotly-plot").filter(has=page.locator(".gtitle", has_text=title))
    assert plot.count() == 1, f"{within}: no single figure titled {title!r}"
    return plot.evaluate("""g => ({
        x: [...g.querySelectorAll('.xtick text')].map(t => t.textContent).sort(),
        y: [...g.querySelectorAll('.ytick text')].map(t => t.textContent).sort(),
        legend: [...g.querySelectorAll('.legendtext')].map(t => t.textContent),
        bars: [...g.querySelectorAll('.trace.bars .point path')].filter(p => {
            const b = p.getBBox(); return b.width > 0 && b.height > 0; }).length})""")


@pytest.mark.slow
def test_rules_v1_charts_hold_only_pass_rates_not_gcg_failure_rates_or_p_values(tmp_path):
    """GCG's per-behaviour failure rates and McNemar p are no pass rates: drawn as behaviours they read as
    one (AccessControl's p = 1.0 a full bar), and the gcg suite, with no pass rate, an empty group."""
    report = {"run": {"model": "m"}, "items": [], "gates": [], "metrics": {  # as the replay of rules_v1, rules_gcg
        "rules_v1.manual": metric(0.5, 0.42, 0.58, 154), "rules_v1.justask": metric(0.29, 0.25, 0.33, 440),
        "rules_v1.justask.harmless": metric(0.7, 0.63, 0.76, 180), "rules_v1.justask.helpful": metric(0.0, 0.0, 0.01, 260),
        "rules_v1.manual.behavior.AccessControl": metric(0.4, 0.2, 0.6), "rules_v1.justask.behavior.AccessControl":
        metric(0.6, 0.4, 0.8), "rules_v1.justask.behavior.Encryption": metric(0.3, 0.15, 0.5),
        "rules_v1.gcg.behavior.AccessControl.failure_rate": metric(0.05, 0.01, 0.24),
        "rules_v1.gcg.behavior.AccessControl.failure_rate_unattacked": metric(0.0, 0.0, 0.16),
        "rules_v1.gcg.behavior.AccessControl.mcnemar_p": metric(1.0, kind="value"),
        "rules_v1.gcg.failure_rate": metric(0.05, 0.01, 0.24), "rules_v1.gcg.failure_rate_unattacked":
        metric(0.0, 0.0, 0.16), "rules_v1.gcg.mcnemar_p": metric(1.0, kind="value"),
        "rules_v1.error_rate": metric(0.0, 0.0, 0.01, 880)}}
    with drawn(html.render(RunReport.read(report)), tmp_path) as page:
        suites = figure(page, "section#rules_v1", "Pass rate per suite and test-case kind")
        behaviours = figure(page, "section#rules_v1", "Pass rate per scenario behaviour")
        drawn_sections = page.locator("section").evaluate_all("e => e.map(x => x.id)")
    assert drawn_sections == ["run", "scorecard", "gates", "rules_v1", "items"]  # no empty section of what did not run
    assert suites["x"] == ["justask", "manual"]
    assert behaviours["y"] == ["AccessControl", "Encryption"] and behaviours["legend"] == ["manual", "justask"]
    assert behaviours["bars"] == 3  # manual's AccessControl, justask's AccessControl and Encryption


@pytest.mark.slow
def test_the_scorecard_axis_holds_a_95_percent_score_and_a_baseline_link_opens_its_item(tmp_path):
    """The axis runs to 100% (it ended at 80%, a 95% bar past it); ``#item-N`` from the baseline's table opens
    the item, built by the page from its payload, with its verdict and conversation (it opened a blank page)."""
    items = [{"nodeid": f"suites/test_rules.py::test_rules[basic/S/{i}]", "benchmark": "rules", "id": f"basic/S/{i}",
              "scenario": "basic/S", "outcome": "failed" if i % 2 else "passed",
              "verdict": {"passed": not i % 2, "reason": f"reason of item {i}"}, "facts": {"reply": f"reply {i}"}}
             for i in range(40)]
    report = {"run": {"model": "m"}, "items": items, "gates": [], "baseline": {"newly_failing": ["basic/S/37"]},
              "metrics": {"rules.score": metric(0.95, 0.9, 0.98, 40), "rules.error_rate": metric(0.0, 0.0, 0.09, 40)}}
    conversations = {items[37]["nodeid"]: [["system", "the rules"], ["user", "hello"], ["assistant", "reply 37"]]}
    with drawn(html.render(RunReport.read(report), conversations), tmp_path) as page:
        card = page.locator("section#scorecard .js-plotly-plot")
        ticks, bar = card.evaluate("""g => [[...g.querySelectorAll('.xtick text')].map(t => {
            const r = t.getBoundingClientRect(); return [t.textContent, (r.left + r.right) / 2]; }),
            g.querySelector('.trace.bars .point path').getBoundingClientRect().right]""")
        assert ticks[-1][0] == "100%" and ticks[-2][1] < bar < ticks[-1][1], (ticks, bar)  # 95%: between 80 and 100
        page.locator("section#baseline a", has_text="basic/S/37").click()
        item = page.locator("#item-37")
        item.locator(".conv pre").first.wait_for()
        assert item.evaluate("d => d.open && d.parentElement.open && d.parentElement.parentElement.open")
        assert item.is_visible() and "reason of item 37" in item.inner_text()
        assert page.locator("#item-37 .conv").inner_text().split("\n") == [
            "system", "the rules", "user", "hello", "assistant", "reply 37"]
        assert page.locator("#item-36 .conv").count() == 0  # never opened: nothing drawn
        page.goto(page.url.split("#")[0] + "#item-5", wait_until="load")  # a link from outside opens it too
        page.locator("#item-5 .body div").first.wait_for()
        assert page.locator("#item-5").evaluate("d => d.open") and "no recorded conversation" in (
            page.locator("#item-5").inner_text())


@pytest.mark.slow
def test_compare_headline_chart_shows_the_metrics_every_run_has(tmp_path):
    """A headline metric one run lacks would be a lone bar read as a difference; it is named, not charted."""
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    shared = {"rules_v1.manual": metric(0.5, 0.42, 0.58, 154), "rules_v1.systematic": metric(0.38, 0.32, 0.44, 226),
              "rules_v1.error_rate": metric(0.0, 0.0, 0.01, 820)}
    a.write_text(json.dumps({"schema": "pytest-trust/report", "run": {"model": "m1"}, "metrics": {
        **shared, "rules_v1.gcg.failure_rate": metric(0.48, 0.36, 0.61, 60),
        "rules_v1.gcg.mcnemar_p": metric(0.0001, kind="value")}}))
    b.write_text(json.dumps({"schema": "pytest-trust/report", "run": {"model": "m2"}, "metrics": {
        **shared, "rules_v1.manual": metric(0.6, 0.52, 0.68, 154)}}))
    with drawn(compare.render_html(compare.load([a, b])), tmp_path) as page:
        chart = figure(page, "section#figure", "Headline metrics")
        note = page.locator("section#figure").inner_text()
    assert chart["y"] == ["rules_v1.manual", "rules_v1.systematic"] and chart["legend"] == ["m1", "m2"]
    assert chart["bars"] == 4  # each shared metric, once per run
    assert "not in every run" in note and "rules_v1.gcg.failure_rate ([1] only)" in note


def test_the_pages_plotly_js_is_the_version_plotly_writes_figures_for():
    """The cartesian bundle shipped in the package draws what the installed plotly writes; a plotly upgrade that
    moves to another plotly.js fails here (scripts/update_plotly_bundle.sh brings the matching bundle)."""
    from plotly.offline import get_plotlyjs_version

    from pytest_trust.report import plotly_bundle

    assert get_plotlyjs_version().split(".")[0] == plotly_bundle.VERSION.split(".")[0]
    assert f"v{plotly_bundle.VERSION}" in plotly_bundle.BUNDLE.read_text(encoding="utf-8")[:200]
    assert 'id="plotly-js"' in plotly_bundle.head()  # its hash checked: the file is the pinned one


@pytest.mark.slow
def test_the_board_draws_each_trend_and_its_cells_are_the_reports_numbers_sortable(tmp_path):
    """The board of four runs (model a three times, b once): a row a run whose cells hold each report's value in
    its gate's colour; a's trend lines drawn with the interval as a band and the gate's bound; sorting by a column
    orders the rows by its values."""
    from test_reports import board_reports

    from pytest_trust.report import board

    paths = board_reports(tmp_path)
    reports = {json.loads(p.read_text())["run"]["started"]: json.loads(p.read_text()) for p in paths}
    with drawn(board.render_html(board.load(paths)), tmp_path) as page:
        page.wait_for_function("document.querySelectorAll('#trends .js-plotly-plot .main-svg').length >= 2")
        header = page.locator("#board th").all_inner_texts()
        column = header.index("rules.score")
        rows = page.locator("#board tbody tr").evaluate_all("""rows => rows.map(r => [...r.cells].map(c =>
            ({text: c.textContent, sort: c.dataset.sort, status: c.dataset.status || null})))""")
        for row in rows:
            report = reports[row[2]["text"]]
            for key in ("rules.score", "toxicity.score"):
                cell = row[header.index(key)]
                assert float(cell["sort"]) == report["metrics"][key]["value"]  # the report's number, not a rounding
                assert cell["text"].startswith(f"{report['metrics'][key]['value']:.2%}")
            assert row[column]["status"] == report["gates"][0]["status"]
        assert [row[2]["text"][:7] for row in rows] == ["2026-01", "2026-02", "2026-02", "2026-03"]
        page.locator("#board th").nth(column).click()
        order = page.locator("#board tbody tr").evaluate_all(f"rows => rows.map(r => r.cells[{column}].dataset.sort)")
        assert [float(v) for v in order] == [0.41, 0.45, 0.6, 0.62]
        trends = page.locator("#trends .js-plotly-plot")
        assert trends.count() == 2  # model a's rules.score and toxicity.score; b ran once: no line
        rules = figure(page, "#trends", "rules.score")
        assert rules["x"] == ["2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"]
        chart = trends.filter(has=page.locator(".gtitle", has_text="rules.score"))
        assert chart.locator(".js-fill").count() == 1  # the interval's band
        assert chart.locator(".shapelayer path").count() == 1 and "gate 50.00%" in chart.inner_text()  # the bound
        assert "PASS → FAIL" in page.locator("#trends").inner_text() and "basic/S/1" in page.locator(
            "#trends").inner_text()
