"""The documentation site: ``mkdocs build --strict``, followed link by link in headless Chromium (skipped
without it and the ``docs`` extra, a failure with ``GYM_SUITE_REQUIRE_BROWSER=1``)."""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

import gym_suite

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
QUIET_MKDOCS = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}  # the plugins' banners
CHROMIUM_FLAGS = (
    "--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update "
    "--disable-sync --no-first-run --window-size=1280,1000"
).split()


def test_readme_links_are_absolute_and_its_pictures_exist():
    """PyPI shows README.md without the repository's files: no relative link; pictures from docs/img, existing."""
    text = re.sub(r"```.*?```", "", README.read_text(encoding="utf-8"), flags=re.DOTALL)  # code blocks are not links
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)", text) + re.findall(r"""src\s*=\s*["']([^"']+)""", text)
    links = re.findall(r"(?<!!)\[[^\]]*\]\(([^)\s]+)", text) + re.findall(r"""href\s*=\s*["']([^"']+)""", text)
    relative = [t for t in links if not re.match(r"(https?:|mailto:|#)", t)]
    assert not relative, f"README.md has links relative to the repository: {relative}"
    local = [t for t in images if not re.match(r"https?:", t)]
    assert images and all(t.startswith("docs/img/") and (ROOT / t).is_file() for t in local), images


#: A heading of level 2 or more, a table's rule, a fence: inside a code block, a fence was lost.
MARKDOWN_STRUCTURE = re.compile(r"^(#{2,6} \S|\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$|```)")


def doc_pages() -> list[Path]:
    """The site's hand-written pages (the environment notes are parts of generated pages)."""
    return sorted(p for p in (ROOT / "docs").rglob("*.md") if "_scripts" not in p.parts and "env-notes" not in p.parts)


def markdown_problems(text: str) -> list[str]:
    """No ``# `` title first (after front matter), a fence left open, structure inside a fence, or code outside one."""
    problems = []
    lines = text.splitlines()
    if lines and lines[0] == "---" and "---" in lines[1:]:  # MkDocs' front matter (hide: ...) comes first
        lines = lines[lines.index("---", 1) + 1 :]
    first = next((line for line in lines if line.strip()), "")
    if not (first.startswith("# ") or first.startswith('--8<-- "')):  # a snippet page takes its file's title
        problems.append(f"the first line is not a '# ' title: {first[:60]!r}")
    fence = None
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if fence is None:
            if stripped.startswith("```"):
                fence = number
            elif re.match(r"^(import|from) [\w.]+( import .+)?$", line):
                problems.append(f"line {number}: code outside a code block: {line!r}")
        elif stripped == "```":
            fence = None
        elif MARKDOWN_STRUCTURE.match(stripped):
            problems.append(f"line {number}: Markdown structure inside the code block of line {fence}: {line!r}")
    if fence is not None:
        problems.append(f"the code block of line {fence} is never closed")
    return problems


@pytest.mark.parametrize("page", doc_pages(), ids=lambda p: str(p.relative_to(ROOT / "docs")))
def test_every_page_has_a_title_and_closed_code_blocks(page):
    problems = markdown_problems(page.read_text(encoding="utf-8"))
    assert not problems, f"{page.relative_to(ROOT)}: " + "; ".join(problems)


def test_the_page_check_catches_a_page_whose_title_and_fence_are_lost():
    garbled = "import jax\nprint(1)\n```\n\n- a list\n\n## Gymnasium\n\n| a | b |\n|---|---|\n\n```python\nx = 1\n```\n"
    problems = " ".join(markdown_problems(garbled))  # the title and the opening fence lost
    assert all(p in problems for p in ("title", "code outside a code block", "Markdown structure inside"))
    assert markdown_problems("# Title\n\n```python\nimport jax\n```\n\n## Next\n") == []


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    import importlib.util

    for module in ("mkdocs", "material", "mkdocstrings_handlers.python", "mkdocs_gen_files", "mkdocs_literate_nav"):
        if importlib.util.find_spec(module.split(".")[0]) is None:
            _missing_tool(f'{module} is missing: pip install -e ".[docs]"')
    out = tmp_path_factory.mktemp("site")
    build = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)]
    done = subprocess.run(
        build, cwd=ROOT, capture_output=True, text=True, timeout=600, env={**os.environ, **QUIET_MKDOCS}
    )
    log = done.stdout + done.stderr
    assert done.returncode == 0 and "WARNING" not in log, f"mkdocs build --strict failed:\n{log[-5000:]}"
    return out


@pytest.mark.slow
def test_every_environment_has_a_page_from_its_docstring(site):
    import gymnasium

    for spec in gym_suite.SPECS:
        html = (site / "environments" / spec.id / "index.html").read_text(encoding="utf-8")
        text = re.sub(r"<[^>]+>", "", html).replace("&quot;", '"').replace("&amp;", "&")
        assert f'gymnasium.make("gym_suite:{spec.id}")' in text
        assert spec.summary in text
        module, _, name = gymnasium.spec(spec.id).entry_point.partition(":")
        doc = getattr(__import__(module, fromlist=[name]), name).__doc__
        headings = re.findall(r"^\s*## (.+?)\s*$", doc, re.MULTILINE)  # every section of the docstring is on the page
        assert headings and all(f">{h}<" in html for h in headings), (spec.id, headings)
        if spec.max_episode_steps is not None:
            assert f"{spec.max_episode_steps:,} steps" in text
        if (ROOT / "docs" / "img" / f"{spec.id}.gif").exists():
            assert f"img/{spec.id}.gif" in html
    home = (site / "index.html").read_text(encoding="utf-8")
    missing = [env_id for env_id in gym_suite.ENV_IDS if f'href="environments/{env_id}/"' not in home]
    assert not missing, f"the home page does not link to {missing}"


@pytest.mark.slow
def test_api_reference_is_built_from_the_docstrings(site):
    """Every name a user or a contributor programs against has its entry, Sphinx roles turned into code."""
    import inspect

    from gym_suite.envs import checks, definition

    def public(namespace, prefix, own=lambda value: True):
        return [
            f"{prefix}.{name}" for name, value in vars(namespace).items() if not name.startswith("_") and own(value)
        ]

    mine = lambda v: (inspect.isfunction(v) or inspect.isclass(v)) and v.__module__ == checks.__name__  # noqa: E731
    in_checks = public(checks, "gym_suite.envs.checks", mine)
    training = ("sb3.train_sb3", "sb3_vec.SuiteVecEnv", "rllib.rllib_config", "recipes.recipe_for")
    wanted = {
        "evaluate": ["gym_suite.evaluate.evaluate", "gym_suite.evaluate.EvalResult"],
        "training": [f"gym_suite.training.{name}" for name in training],
        "envs": [f"gym_suite.envs.{name}" for name in ("check_definition", "Violation", "DefinitionError")],
        "ops": public(definition.Ops, "gym_suite.envs.definition.Ops"),
        "definition": public(definition.Definition, "gym_suite.envs.definition.Definition"),
        "checks": in_checks,
        "progress": [f"gym_suite.progress.{n}" for n in ("Progress", "Progress.write", "sb3_callback", "duration")],
        "quiet": [f"gym_suite.quiet.{n}" for n in ("make", "make_vec", "no_version_notice", "import_gym_quietly")],
    }
    pages = {page: (site / "reference" / page / "index.html").read_text(encoding="utf-8") for page in wanted}
    missing = {page: [name for name in names if f'id="{name}"' not in pages[page]] for page, names in wanted.items()}
    assert not any(missing.values()), missing
    assert ":func:`" not in pages["evaluate"] + pages["training"]


@pytest.fixture(scope="module")
def server(site):
    handler = functools.partial(QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    log_message = lambda self, format, *args: None  # noqa: E731


def _missing_tool(reason: str):
    if os.environ.get("GYM_SUITE_REQUIRE_BROWSER") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    if not chromium or not chromedriver:
        _missing_tool("headless Chromium is needed: apt-get install chromium chromium-driver (Debian packages)")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _missing_tool('selenium is missing: pip install -e ".[docs]"')
    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium Manager download a browser
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=chromedriver))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


LOAD_IMAGES = """
const done = arguments[arguments.length - 1];
const images = Array.from(document.images);
for (const img of images) { img.loading = "eager"; img.scrollIntoView(); }
Promise.all(images.map(img => img.complete ? null : new Promise(r => { img.onload = img.onerror = r; })))
  .then(() => done(images.map(img => [img.currentSrc || img.src, img.naturalWidth])));
"""

PAGE_REFERENCES = """
const refs = [];
for (const a of document.querySelectorAll("a[href]")) refs.push(["link", a.href]);
for (const l of document.querySelectorAll("link[rel=stylesheet][href]")) refs.push(["asset", l.href]);
for (const s of document.querySelectorAll("script[src]")) refs.push(["asset", s.src]);
return [refs, Array.from(document.querySelectorAll("[id]")).map(e => e.id)];
"""


def visit(browser, url: str):
    """The ids of the page at ``url``, its references, the images that do not load and the browser's errors."""
    browser.get(url)
    for _ in range(300):  # the document parsed to its end (a long API page may still be reading)
        if browser.execute_script("return document.readyState") == "complete":
            break
        time.sleep(0.1)
    refs, ids = browser.execute_script(PAGE_REFERENCES)
    images = browser.execute_async_script(LOAD_IMAGES)
    blank = [(url, src, width) for src, width in images if status(src) != 200 or width <= 0]
    errors = [(url, entry["message"]) for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    return set(ids), refs, blank, errors


def missing_anchors(references: list[tuple[str, str]], pages: dict[str, set[str]]) -> list[tuple[str, str]]:
    """The references ``(page, url#anchor)`` to a visited page that has no such id."""
    missing = []
    for page, ref in references:
        target, _, fragment = ref.partition("#")
        if fragment and target in pages and urllib.parse.unquote(fragment) not in pages[target]:
            missing.append((page, ref))
    return missing


@pytest.mark.slow
def test_every_internal_link_and_image_loads_in_chromium(server, browser):
    """From the home page: every internal page, asset, image and anchor is there, and no browser error."""
    browser.set_script_timeout(60)
    pages: dict[str, set[str]] = {}
    queue, broken, blank, errors = [server], [], [], []
    references: list[tuple[str, str]] = []
    while queue:
        url = queue.pop()
        if url in pages:
            continue
        if status(url) != 200:
            broken.append(url)
            pages[url] = set()
            continue
        pages[url], refs, page_blank, page_errors = visit(browser, url)
        blank += page_blank
        errors += page_errors
        for kind, ref in refs:
            if not ref.startswith(server):
                continue  # an external link: not followed
            target = ref.partition("#")[0]
            references.append((url, ref))
            if kind == "link" and target.endswith("/"):
                if target not in pages:
                    queue.append(target)
            elif status(target) != 200:
                broken.append(target)
    wanted = {f"{server}environments/{env_id}/" for env_id in gym_suite.ENV_IDS}
    assert wanted <= set(pages), f"environment pages not reachable by links: {wanted - set(pages)}"
    assert len(pages) >= 15
    assert not broken, f"internal links that do not answer 200: {sorted(set(broken))}"
    assert not blank, f"images that do not load: {blank}"
    for page in {ref.partition("#")[0] for _, ref in missing_anchors(references, pages)}:
        pages[page] = visit(browser, page)[0]  # read once more: a page read before its end lacks ids
    assert not missing_anchors(references, pages), f"links to missing anchors: {missing_anchors(references, pages)}"
    assert not errors, f"the browser logged errors: {errors}"


@pytest.mark.slow
def test_screenshot_of_an_environment_page(server, browser, tmp_path):
    from PIL import Image

    env_id = next((i for i in gym_suite.ENV_IDS if (ROOT / "docs" / "img" / f"{i}.gif").exists()), gym_suite.ENV_IDS[0])
    browser.set_window_size(1280, 1000)
    browser.get(f"{server}environments/{env_id}/")
    assert browser.execute_script("return document.querySelector('h1').textContent").strip().startswith(env_id)
    browser.set_script_timeout(60)
    images = browser.execute_async_script(LOAD_IMAGES)
    browser.execute_script("window.scrollTo(0, 0)")
    path = tmp_path / f"{env_id}.png"
    assert browser.save_screenshot(str(path))
    with Image.open(path) as shot:
        assert shot.size[0] >= 800 and shot.size[1] >= 600
        colours = shot.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50 and max(colours)[0] / (shot.size[0] * shot.size[1]) < 0.95
    if (ROOT / "docs" / "img" / f"{env_id}.gif").exists():
        assert any(src.endswith(f"img/{env_id}.gif") and width > 0 for src, width in images)


@pytest.mark.slow
@pytest.mark.parametrize("page", ["baselines/", "training-speed/", "bench/", "environments/"])
def test_wide_tables_and_pictures_stay_in_the_content_column_at_1280px(server, browser, page):
    """At 1280 px a table scrolls inside the content column; the environments' pictures carry their ids."""
    browser.set_window_size(1280, 1000)
    browser.get(f"{server}{page}")
    overflow = browser.execute_script(
        """
        const column = document.querySelector('.md-content__inner').getBoundingClientRect();
        return [...document.querySelectorAll('.md-typeset table')]
            .map(t => t.getBoundingClientRect())
            .filter(r => r.right > column.right + 1 || r.left < column.left - 1)
            .map(r => [r.left, r.right, column.left, column.right]);
        """
    )
    assert not overflow, f"{page}: tables past the content column (left, right, column left, right): {overflow}"
    if page == "environments/":
        captions = browser.execute_script("return [...document.querySelectorAll('figcaption')].map(c => c.textContent)")
        pictured = [i for i in gym_suite.ENV_IDS if (ROOT / "docs" / "img" / f"{i}.gif").exists()]
        assert captions == pictured


def test_readme_usage_snippet_prints_only_its_own_output():
    """The first snippet a user runs: no warning of Gymnasium's or ours on standard error."""
    match = re.search(r"<!-- usage-snippet -->\n```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    done = subprocess.run([sys.executable, "-c", match.group(1)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0 and done.stderr == "", done.stderr[-2000:]
    assert "alertness" in done.stdout  # heartpole's ansi picture


def test_the_home_page_shows_every_ids_picture_in_its_gallery():
    """docs/index.md's gallery (generated from the registry): each id's GIF once, linked to its page."""
    home = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- generated:home-gallery -->\n(.*?)<!-- end:home-gallery -->", home, re.S).group(1)
    assert 'class="env-gallery"' in block
    for env_id in gym_suite.ENV_IDS:
        assert (ROOT / "docs" / "img" / f"{env_id}.gif").is_file() and block.count(f"](img/{env_id}.gif)") == 1, env_id
        assert f"](environments/{env_id}.md)" in block


@pytest.mark.slow
def test_the_pages_read_at_1280px(server, browser):
    """At 1280 px: the JAX page does not scroll sideways, the gallery is a grid, the baselines table comes first."""
    browser.set_window_size(1280, 1000)
    browser.get(f"{server}training/jax/")
    wide, scrolled = browser.execute_script(
        """const page = document.documentElement;
        return [[page.scrollWidth, page.clientWidth], [...document.querySelectorAll('.md-typeset pre > code')]
            .filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.textContent.split('\\n')[0])];"""
    )
    assert wide[0] <= wide[1], f"the JAX training page scrolls sideways: {wide[0]} px wide in {wide[1]}"
    assert not scrolled, f"code blocks that scroll sideways (their first lines): {scrolled}"
    browser.get(server)
    shown = browser.execute_script(
        """return [...document.querySelectorAll('.env-gallery img')].map(i => {
            const r = i.getBoundingClientRect(); return [i.getAttribute('src'), Math.round(r.top)]; })"""
    )
    sources = [src for src, _ in shown]
    assert sorted(sources) == sorted(f"img/{env_id}.gif" for env_id in gym_suite.ENV_IDS), sources
    rows = {top for _, top in shown}
    assert 1 < len(rows) < len(shown), f"the pictures are not a grid: rows at {sorted(rows)}"
    browser.get(f"{server}baselines/")
    order = browser.execute_script(
        """const table = document.querySelector('.md-typeset table');
        const running = [...document.querySelectorAll('.md-typeset p')].find(p => /^Reproduce with/.test(p.textContent));
        return [!!table, !!running, !!(table && running
            && (table.compareDocumentPosition(running) & Node.DOCUMENT_POSITION_FOLLOWING))];"""
    )
    assert order == [True, True, True], (
        f"the baselines table is not before how it is run (table, prose, order): {order}"
    )
