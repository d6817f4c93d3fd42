"""Committed reports, opened in a real browser.

Each committed ``reports/*/report.html`` is copied next to its charts with a
small probe script injected first thing in the page; headless Chromium loads
it at 1280x800 and dumps the DOM, in which the probe has written what it saw:
script errors and ``console.error`` calls, images that did not load, and where
the summary section and its charts sit on the first screen.  The test runs
wherever Chromium is installed (CI installs it from the system's packages in
``.ci/run``) and is skipped only where no browser exists.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REPORTS = sorted(ROOT.glob("reports/*/report.html"))
BROWSER = next((b for b in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if b), None)
WIDTH, HEIGHT = 1280, 800

PROBE = """<script>
window.__errs = [];
window.addEventListener('error', e => window.__errs.push('error: ' + (e.message || (e.target && e.target.src))), true);
(function () {
  const orig = console.error;
  console.error = function (...a) { window.__errs.push('console.error: ' + a.join(' ')); orig.apply(console, a); };
})();
window.addEventListener('load', () => {
  const top = el => el ? el.getBoundingClientRect().top + window.scrollY : null;
  const summary = document.getElementById('summary');
  const imgs = [...document.images];
  const out = document.createElement('pre');
  out.id = '__probe';
  out.textContent = JSON.stringify({
    viewport: window.innerHeight,
    images: imgs.length,
    broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => (i.getAttribute('src') || '').slice(0, 80)),
    errors: window.__errs,
    summary_top: top(summary),
    summary_images: summary ? imgs.filter(i => {
      // images after the Summary heading and before the next h2: the summary's own charts
      if (!(summary.compareDocumentPosition(i) & Node.DOCUMENT_POSITION_FOLLOWING)) return false;
      const next = [...document.querySelectorAll('h2')]
        .find(h => summary.compareDocumentPosition(h) & Node.DOCUMENT_POSITION_FOLLOWING);
      return !next || (i.compareDocumentPosition(next) & Node.DOCUMENT_POSITION_FOLLOWING);
    }).map(i => top(i)) : [],
    toc: !!document.getElementById('contents'),
  });
  document.body.appendChild(out);
});
</script>"""


def probe(report: Path, tmp: Path) -> dict:
    """Load ``report`` (with its folder's charts) in headless Chromium and return the probe's findings."""
    site = tmp / report.parent.name
    shutil.copytree(report.parent, site, ignore=shutil.ignore_patterns("results", "chunks"))
    page = site / "report.html"
    html = page.read_text(encoding="utf-8")
    html = re.sub(r"(<head[^>]*>)", lambda m: m.group(1) + PROBE, html, count=1) if "<head" in html else PROBE + html
    page.write_text(html, encoding="utf-8")
    cmd = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           f"--window-size={WIDTH},{HEIGHT}", "--virtual-time-budget=10000", "--dump-dom", page.as_uri()]
    dom = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False).stdout
    m = re.search(r'<pre id="__probe">(.*?)</pre>', dom, re.S)
    assert m, f"{report}: the page did not finish loading in the browser"
    return json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))


pytestmark = pytest.mark.skipif(BROWSER is None, reason="no Chromium installed (CI installs it)")

#: each report's probe, once per process: both tests below read the same page load (tests/conftest.py sends this
#: file's tests to one worker)
_SEEN: dict[Path, dict] = {}


def probed(report: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    if report not in _SEEN:
        _SEEN[report] = probe(report, tmp_path_factory.mktemp(report.parent.name))
    return _SEEN[report]


@pytest.mark.parametrize("report", REPORTS, ids=[p.parent.name for p in REPORTS])
def test_report_loads_without_errors_and_every_image_resolves(report: Path,
                                                               tmp_path_factory: pytest.TempPathFactory) -> None:
    seen = probed(report, tmp_path_factory)
    assert seen["errors"] == [], seen["errors"]
    assert seen["images"] > 0
    assert seen["broken"] == [], seen["broken"]


@pytest.mark.parametrize("report", REPORTS, ids=[p.parent.name for p in REPORTS])
def test_summary_and_its_charts_are_on_the_first_screen(report: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    seen = probed(report, tmp_path_factory)
    screen = seen["viewport"]
    assert seen["summary_top"] is not None, "no element with id='summary'"
    assert seen["summary_top"] < screen / 3, seen
    assert seen["summary_images"], "the summary shows no chart"
    assert min(seen["summary_images"]) < screen, f"the first summary chart starts below the first screen: {seen}"
    assert seen["toc"], "no table of contents (id='contents')"


def test_probe_catches_a_broken_page(tmp_path: Path) -> None:
    """The probe itself: a missing image and a console error are reported (so a green run means something)."""
    if BROWSER is None:
        pytest.skip("no Chromium installed")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "report.html").write_text("<html><head></head><body><script>console.error('boom')</script>"
                                     "<img src='charts/missing.png'></body></html>", encoding="utf-8")
    seen = probe(bad / "report.html", tmp_path / "out")
    assert seen["broken"] == ["charts/missing.png"]
    assert any("boom" in e for e in seen["errors"])
    assert seen["summary_top"] is None
