"""The built book, looked at in a real (headless) browser.

A session fixture builds the book (``bertology build --no-run`` into
``_build/html``) and serves it on 127.0.0.1; headless Chromium then takes
screenshots of the landing page, the §2 notebook page and the claims ledger
(kept under ``_build/screenshots/`` as artifacts) and dumps their rendered DOM,
which must hold the expected content. Every internal link of every page built
must point to a file that exists.

Skipped when no Chromium is installed (``make browser-deps`` installs it when
run as root). ``BERTOLOGY_BOOK_REUSE=1`` checks an existing ``_build/html``
without rebuilding it (used to show that damaging the build fails the test).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
SHOTS = ROOT / "_build" / "screenshots"
CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
PAGES = {
    "index": "index.html",
    "survey_02_architecture": "notebooks/survey_02_architecture.html",
    "claims_ledger": "book/claims_ledger.html",
}
BASE_CLAIM = "survey2.bert_base_params"

pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not installed: run `make browser-deps` as root (apt-get install chromium)",
)


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def book() -> tuple[Path, float | None]:
    """Build the book once per session; return the HTML folder and the build's start time.

    The start time lets the tests tell pages written by this build from stale
    ones left in ``_build/html`` by earlier builds (the build never deletes).
    """
    if os.environ.get("BERTOLOGY_BOOK_REUSE") == "1" and (HTML / "index.html").is_file():
        return HTML, None
    t0 = time.time() - 1  # file-system timestamps may be coarse
    r = subprocess.run(
        [sys.executable, "-m", "bertology_lib.book.cli", "build", "--no-run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if r.returncode != 0:
        log = (r.stdout + r.stderr).splitlines()
        problems = [ln for ln in log if "WARNING" in ln or "ERROR" in ln or "error:" in ln]
        pytest.fail("`bertology build --no-run` failed:\n" + "\n".join((problems or log)[-25:]))
    return HTML, t0


@pytest.fixture(scope="session")
def server(book) -> str:
    """``python -m http.server`` on a free 127.0.0.1 port serving the book; stopped at teardown."""
    html, _ = book
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(html)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 15
        while True:
            try:
                with urllib.request.urlopen(url + "index.html", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"http.server on port {port} did not start (exit code {proc.poll()})")
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def chromium(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run headless Chromium with a throw-away profile; kill its whole process group afterwards."""
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        cmd = [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            *args,
        ]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            pytest.fail(f"chromium {' '.join(args)} did not finish in {timeout:.0f} s:\n{err[-2000:]}")
        finally:
            try:  # helpers (zygote, crashpad) may outlive the browser process
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def resolve_redirect(html: Path, rel: str) -> str:
    """``rel`` or, when that page is only a meta-refresh stub (the book's index.html), its target.

    Chromium can hang taking a screenshot of a page that navigates away while loading.
    """
    m = re.search(r'http-equiv="refresh"[^>]*url=([^"\'>\s]+)', (html / rel).read_text(), re.IGNORECASE)
    return urljoin(rel, m.group(1)) if m else rel


def fetch(url: str) -> bytes:
    """The bytes the server sends for ``url``; fails the test, naming it, when it is not served."""
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.read()
    except urllib.error.HTTPError as e:
        pytest.fail(f"{url} is not served: HTTP {e.code} (missing from the build?)")


def dump_dom(url: str) -> str:
    fetch(url)  # a clear message for a missing page, rather than checks failing on a 404 page
    for _ in range(2):  # a cold first start of Chromium occasionally returns nothing
        r = chromium("--dump-dom", url)
        if r.stdout.strip():
            return r.stdout
    pytest.fail(f"chromium --dump-dom {url} returned no DOM (exit {r.returncode}):\n{r.stderr[-2000:]}")


# ---------------------------------------------------------------- screenshots


@pytest.mark.parametrize("name", list(PAGES))
def test_screenshot(name, book, server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert (book[0] / PAGES[name]).is_file(), f"{PAGES[name]} was not built"
    rel = resolve_redirect(book[0], PAGES[name])
    shot = SHOTS / f"{name}.png"
    shot.unlink(missing_ok=True)
    for _ in range(2):
        r = chromium(f"--screenshot={shot}", "--window-size=1280,2000", server + rel)
        if shot.is_file():
            break
    assert shot.is_file(), f"no screenshot of {rel} (exit {r.returncode}):\n{r.stderr[-2000:]}"
    from PIL import Image

    with Image.open(shot) as im:
        assert im.size == (1280, 2000)
        colours = im.convert("RGB").resize((160, 250)).getcolors(maxcolors=1 << 16)
    assert colours is None or len(colours) > 20, f"{shot} is (nearly) blank"


# ---------------------------------------------------------------- rendered DOM


def _text(dom: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", dom))


def test_index_leads_to_the_landing_page_with_the_title(book, server):
    landing = resolve_redirect(book[0], PAGES["index"])  # Jupyter Book's index.html redirects
    assert (book[0] / landing).is_file(), f"index.html redirects to {landing}, which was not built"
    dom = dump_dom(server + landing)
    assert re.search(r"<title>[^<]*BERTology Lab[^<]*</title>", dom), "landing page has no 'BERTology Lab' title"
    assert re.search(r"<h1[^>]*>\s*BERTology Lab", dom), "landing page has no 'BERTology Lab' heading"
    assert "claims ledger" in _text(dom).lower()


def test_survey2_page_shows_figures_and_verdicts(server):
    url = server + PAGES["survey_02_architecture"]
    dom = dump_dom(url)
    assert re.search(r"<h1[^>]*>\s*§2 BERT", dom), "the §2 title is missing"
    srcs = re.findall(r'<img[^>]*\ssrc="([^"]*_images/[^"]+\.png)"', dom)
    assert srcs, "no <img> of a figure on the §2 page"
    for src in srcs:  # the browser gets a real PNG for each figure
        assert fetch(urljoin(url, src))[:8] == b"\x89PNG\r\n\x1a\n", f"{src} is not a PNG"
    text = _text(dom)
    assert re.search(r"(reproduced|not reproduced|inconclusive) — BERT-base", text), "no verdict for BERT-base"
    assert BASE_CLAIM in text
    assert "Exercise 1" in text and "Solution to" in text


def test_claims_ledger_has_a_row_for_the_bert_base_claim(server):
    dom = dump_dom(server + PAGES["claims_ledger"])
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", dom, re.DOTALL)
    hits = [_text(r) for r in rows if BASE_CLAIM in r]
    assert hits, f"no table row with {BASE_CLAIM} on the claims ledger page"
    assert re.search(r"reproduced|inconclusive", hits[0]), hits[0]


def _visible_rows(dom: str, table_id: str) -> list[str]:
    """The rows of table ``table_id`` that the page's script left shown, in the order the page shows them."""
    table = re.search(rf'<table[^>]*id="{table_id}".*?</table>', dom, re.DOTALL)
    assert table, f"no table with id {table_id}"
    rows = re.findall(r"<tr([^>]*)>(.*?)</tr>", table.group(0), re.DOTALL)
    return [body for attrs, body in rows if "<td" in body and "display: none" not in attrs]


def test_ledger_filters_and_sorts_in_the_browser(book, server):
    """The ledger's script runs: one menu per filter, a query preset filters to the count the static table
    says, and sorting on the estimate orders the shown rows (ids unique: the script finds the table)."""
    page = (book[0] / PAGES["claims_ledger"]).read_text()
    ids = re.findall(r'\sid="([^"]+)"', page)
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    url = server + PAGES["claims_ledger"]
    dom = dump_dom(url)
    menus = re.search(r'<div class="ledger-filters"[^>]*>(.*?)</div>', dom, re.DOTALL)
    assert menus, "no filter box on the ledger page"
    keys = re.findall(r'<select data-key="(\w+)"', menus.group(1))
    assert keys == ["part", "verdict", "instrument", "model", "null"], keys
    n_all = len(_visible_rows(dom, "ledger-claims"))
    n_reproduced = len(
        re.findall(r'<tr data-part="[^"]*" data-verdict="reproduced"', page.split('id="ledger-setup"')[0])
    )
    assert 0 < n_reproduced < n_all
    claims_table = page.split('id="ledger-setup"')[0]
    n_null = len(re.findall(r'<tr [^>]*data-null="reproduced"', claims_table))
    assert 0 < n_null < n_all  # the null run covers some rows, and its twin passes some of them
    nulls = dump_dom(url + "?null=reproduced")
    assert len(_visible_rows(nulls, "ledger-claims")) == n_null and f"{n_null} of {n_all} claims shown" in nulls
    filtered = dump_dom(url + "?verdict=reproduced&sort=ours&order=desc")
    shown = _visible_rows(filtered, "ledger-claims")
    assert len(shown) == n_reproduced and f"{n_reproduced} of {n_all} claims shown" in filtered
    estimates = [float(m.group(1)) for r in shown if (m := re.search(r"<td>\((-?[\d.]+(?:e-?\d+)?),", r))]
    assert len(estimates) > n_reproduced // 2 and estimates == sorted(estimates, reverse=True), estimates[:10]
    model = dump_dom(url + "?model=English%20lab%20BERT")
    assert 0 < len(_visible_rows(model, "ledger-claims")) < n_all


SCAFFOLDING = re.compile(
    r"NBVAL_[A-Z_]+|\bnoqa\b|\bissues?\s+#?\d+|\(#\d+\)|\bthe issue\b|\b(?:physics|survey|house|verdicts?|duplication)[- ]issues?\b",
    re.IGNORECASE,
)
"""What only the project's tools and tracker read: nbval markers, ruff suppressions, issue numbers."""


def _visible_text(page: Path) -> str:
    import html

    raw = re.sub(r"<(script|style)\b.*?</\1>", " ", page.read_text(), flags=re.DOTALL)
    return html.unescape(_text(raw))


def test_no_built_page_shows_scaffolding(book):
    """The reader sees code and prose, not the tools' markers nor the tracker: no nbval marker, no ``# noqa`` and
    no issue number in the visible text of any built page (notebooks, book pages, the API page and the library's
    source pages) nor in the notebooks and page sources the book offers for download (cells and readable outputs). The files keep the markers; ``bertology_lib.book.sphinx_clean`` drops them at build time."""
    pages = sorted(book[0].rglob("*.html"))
    assert len(pages) >= 60 and any("_modules" in p.parts for p in pages)
    shown = {str(p.relative_to(book[0])): sorted(set(m)) for p in pages if (m := SCAFFOLDING.findall(_visible_text(p)))}
    # the notebooks a reader downloads from a page (its download button), as they open in Jupyter: every cell's
    # source and every output a reader can read (text, tables, Markdown; images are base64 and read by nobody)
    downloads = sorted((book[0] / "_sources").rglob("*.ipynb"))
    assert len(downloads) >= 20
    for nb in downloads:
        if m := SCAFFOLDING.findall(_readable(json.loads(nb.read_text()))):
            shown[str(nb.relative_to(book[0]))] = sorted(set(m))
        # and the file as a search finds it, figures' base64 included (which can spell a marker by chance)
        if m := re.findall(r"nbval|noqa", nb.read_text(), re.IGNORECASE):
            shown[str(nb.relative_to(book[0])) + " (raw)"] = sorted(set(m))
    for src in sorted((book[0] / "_sources").rglob("*")):  # the Markdown pages' sources, also offered for download
        if src.is_file() and src.suffix in (".md", ".txt") and (m := SCAFFOLDING.findall(src.read_text())):
            shown[str(src.relative_to(book[0]))] = sorted(set(m))
    # the search box's index: a marker word in it is offered to the reader as a term to search for
    if m := SCAFFOLDING.findall((book[0] / "searchindex.js").read_text()):
        shown["searchindex.js"] = sorted(set(m))
    assert not shown, shown


def _readable(nb: dict) -> str:
    """Every cell's source and the readable parts of its outputs (stream text and non-image data), joined."""
    parts = []
    for cell in nb["cells"]:
        parts.append("".join(cell["source"]))
        for out in cell.get("outputs", []):
            parts.append("".join(out.get("text", "")))
            for kind, value in (out.get("data") or {}).items():
                if not kind.startswith("image/"):
                    parts.append("".join(value) if isinstance(value, list) else json.dumps(value))
    return "\n".join(parts)


# ---------------------------------------------------------------- internal links


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("href", "src"):
            if a.get(key):
                self.urls.append(a[key])
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "refresh":
            m = re.search(r"url=(.+)", a.get("content") or "", re.IGNORECASE)
            if m:
                self.urls.append(m.group(1).strip())


def _internal(url: str) -> str | None:
    """The path part of a link to a file of the book, or None for anchors and external links."""
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or url.startswith("#") or not parts.path:
        return None
    return unquote(parts.path)


def test_internal_links_resolve(book):
    html, t0 = book
    lazy = html / "_modules"  # sphinx.ext.viewcode rewrites a source page only when the module changed

    def fresh(p: Path) -> bool:
        return t0 is None or p == html / "index.html" or lazy in p.parents or p.stat().st_mtime >= t0

    pages = [
        p
        for p in html.rglob("*.html")  # not theme templates in _static/, nor hidden folders
        if not any(part.startswith((".", "_static", "_sources")) for part in p.relative_to(html).parts)
    ]
    built = [p for p in pages if fresh(p)]
    for name, rel in PAGES.items():
        assert (html / rel).is_file(), f"{rel} was not built"
        assert fresh(html / rel), f"{rel} is stale: this build did not write it"
    broken: list[str] = []
    n = 0
    for page in built:
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        for url in parser.urls:
            path = _internal(url)
            if path is None:
                continue
            n += 1
            target = Path(os.path.normpath(html / path.lstrip("/") if path.startswith("/") else page.parent / path))
            if target.is_dir():
                target = target / "index.html"
            where = f"{page.relative_to(html)} -> {url}"
            if not target.exists():
                broken.append(where)
            elif target.suffix == ".html" and not fresh(target):
                broken.append(where + " (stale page, not written by this build)")
    assert n > 50, f"only {n} internal links found in {len(built)} pages"
    assert not broken, f"{len(broken)} broken internal links:\n" + "\n".join(sorted(set(broken))[:30])


# ---------------------------------------------------------------- conclusions

FINDINGS_MAX_PX = 6000  # a synthesis read in five minutes, not a second ledger


def page_height(book: tuple[Path, float | None], server: str, rel: str, width: int = 1400) -> int:
    """The rendered height in px of the built page ``rel`` at ``width`` px, measured by Chromium in a
    same-origin frame (a measuring page written into the build for the call, removed afterwards)."""
    probe = book[0] / "_measure_height.html"
    probe.write_text(
        f'<html><body style="margin:0"><iframe id="f" src="{rel}" style="width:{width}px;height:800px;border:0">'
        "</iframe><script>document.getElementById('f').onload = function () {"
        "var d = this.contentDocument; document.body.setAttribute('data-height', "
        "Math.max(d.body.scrollHeight, d.documentElement.scrollHeight)); };</script></body></html>"
    )
    try:
        for _ in range(2):
            r = chromium(
                f"--window-size={width + 40},1000", "--virtual-time-budget=8000", "--dump-dom", server + probe.name
            )
            m = re.search(r'data-height="(\d+)"', r.stdout)
            if m:
                return int(m.group(1))
    finally:
        probe.unlink(missing_ok=True)
    pytest.fail(f"could not measure {rel}:\n{r.stderr[-2000:]}")


def test_findings_is_a_synthesis_short_enough_to_read(book, server):
    """The closing chapter explains the interval notation, compares models and gives reasons, and fits in
    FINDINGS_MAX_PX at 1400 px (the whole ledger is a page of its own)."""
    page = (book[0] / "book" / "findings.html").read_text()
    for heading in ("In numbers", "One finding, several models", "What did not reproduce, and why"):
        assert heading in page, heading
    assert "(estimate, low, high)" in page
    height = page_height(book, server, "book/findings.html")
    assert height <= FINDINGS_MAX_PX, f"findings is {height} px tall at 1400 px; allowed: <= {FINDINGS_MAX_PX}"


def test_every_notebook_page_concludes_from_its_claims(book):
    """Each notebook page that records claims has, under "What we found", the conclusion computed from them
    (the counts; a reason for each claim that did not reproduce), linked to the claims' cells on the page."""
    from bertology_lib.book.claims import claims_in_notebook, reproductions

    missing = []
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        rep = reproductions(claims_in_notebook(nb))
        if not rep:
            continue
        page = (book[0] / "notebooks" / f"{nb.stem}.html").read_text()
        section = page.split('id="what-we-found"', 1)[-1].split('id="exercises"', 1)[0]
        if f"{len(rep)} claim{'s' if len(rep) != 1 else ''} tested" not in section:
            missing.append(nb.stem)
            continue
        unsettled = [c for c in rep if c.verdict != "reproduced"]
        for c in unsettled:
            if f'href="#{c.anchor}"' not in section:
                missing.append(f"{nb.stem}: {c.id}")
    assert missing == [], f"pages without their computed conclusion (or a reason for a claim): {missing}"


def test_the_attention_explorer_works_offline_from_file_urls(book, tmp_path):
    """The book's interactive view: the attention-head explorer of survey_04_2 renders from ``file://`` (no
    server, no network, no kernel) and a click on a head of its grid selects that head and draws its lines."""
    page = book[0] / "notebooks" / "survey_04_2_attention_heads.html"
    assert 'class="bertology-explorer"' in page.read_text(), "the explorer is not in the built page"
    wrapper = tmp_path / "click.html"
    wrapper.write_text(
        f'<html><body><iframe id="f" src="{page.as_uri()}" width="1400" height="900"></iframe><script>'
        "document.getElementById('f').onload = function () {"
        "var d = this.contentDocument, r = d.querySelector('.bertology-explorer');"
        "var before = r.dataset.selected;"
        'd.querySelector(\'.bx-cell[data-layer="1"][data-head="2"]\').click();'
        "document.body.setAttribute('data-result', before + '|' + r.dataset.selected + '|' + r.dataset.lines);"
        "};</script></body></html>"
    )
    r = chromium("--allow-file-access-from-files", "--virtual-time-budget=8000", "--dump-dom", wrapper.as_uri())
    m = re.search(r'data-result="([^"]*)"', r.stdout)
    assert m, f"the explorer did not respond in the page:\n{r.stderr[-2000:]}"
    before, after, lines = m.group(1).split("|")
    assert before != "1,2" and after == "1,2" and int(lines) > 0, m.group(1)


def test_each_chapter_page_numbers_its_exercises_from_one(book):
    """Exercise numbers restart on each notebook page (as in the student copies), not across the whole book, and
    every solution toggle names a number its page gives an exercise."""
    html, _ = book
    pages = sorted((html / "notebooks").glob("*.html"))
    assert len(pages) >= 26
    for page in pages:
        text = page.read_text()
        numbers = [int(n) for n in re.findall(r'caption-number">Exercise (\d+)', text)]
        assert numbers == list(range(1, len(numbers) + 1)), (page.name, numbers)
        solved = {int(n) for n in re.findall(r"Solution to<a [^>]*> Exercise (\d+)</a>", text)}
        assert solved <= set(numbers), (page.name, sorted(solved - set(numbers)))
        discussion = re.findall(r'<div class="exercise\b[^"]*\bdiscussion\b[^"]*" id="([^"]+)"', text)
        assert discussion == re.findall(r"(ex-[\w-]+)\n:class: discussion", _source_markdown(page.stem)), page.name


def _source_markdown(stem: str) -> str:
    """The Markdown cells of notebook ``stem``, joined."""
    import json

    cells = json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text())["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
