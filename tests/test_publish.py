"""Publishing and linking: sitemap, Atom feed, canonical links, previews, citations, exports,
alias redirects, the 404 page, build notes and progress, and the GitHub Pages workflow."""

from __future__ import annotations

import html
import io
import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from conftest import REPO, build_args, make_project, paper_text
from papersite import urls
from papersite.enrich.bibtex import bibtex_keys, escape_math, keyword_list, markdown_to_latex
from papersite.cli import main
from papersite.digests import digest
from papersite.model import Paper
from papersite.render.notfound import ROOT_SCRIPT, script_hash
from papersite.progress import Progress
from papersite.publish.feeds import BASE_URL_NOTE

BASE = "https://example.org/papers/"
ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
README_COMMAND = "python3 -m venv .venv && .venv/bin/pip install -r requirements.txt && npm ci --omit=dev && .venv/bin/python build.py"

HOSTILE_TITLE = r"'Fast & 100% sure: $x_1^{2}$ costs #1 {half ~ ^ \ back Über_all'"
HOSTILE_BODY = (
    "We study A & B at 100% with $\\{x\\}$ and a lone } brace, C# ~ ^ \\\\ and snake_case.\n\n"
    "A second paragraph with \\$5 and `code_span` and [a link](https://example.com/a_b?x=1&y=2)."
)
EXTRA_PAPERS = {
    "hostile.md": paper_text(id="pub-0001", slug="hostile-characters", title=HOSTILE_TITLE,
                             authors="[Ada Lovelace, 'Smith and Wesson', 'Élodie Ørsted']", body=HOSTILE_BODY),
    "renamed.md": paper_text(id="pub-0002", slug="new-name", title="'A paper that changed its slug'",
                             aliases="[old-name]"),
}


# --- helpers ---------------------------------------------------------------------------------

def html_files(site: Path) -> dict[str, str]:
    return {str(p.relative_to(site)): p.read_text(encoding="utf-8") for p in sorted(site.rglob("*.html"))}


def meta(text: str, attr: str, name: str) -> list[str]:
    """Values of <meta {attr}="{name}" content="..."> (our templates write name/property first)."""
    pattern = rf'<meta {attr}="{re.escape(name)}" content="([^"]*)">'
    return [html.unescape(v) for v in re.findall(pattern, text)]


def canonical_of(text: str) -> list[str]:
    return [html.unescape(v) for v in re.findall(r'<link rel="canonical" href="([^"]*)">', text)]


def is_redirect(text: str) -> bool:
    return 'http-equiv="refresh"' in text


def is_noindex(text: str) -> bool:
    return bool(re.search(r'<meta name="robots" content="[^"]*noindex', text))


def paper_slugs(site: Path) -> set[str]:
    return {p["slug"] for p in json.loads((site / urls.EXPORT_JSON).read_text(encoding="utf-8"))["papers"]}


def parse_bibtex(text: str) -> list[tuple[str, str, dict[str, str]]]:
    """(type, key, fields) per entry, as BibTeX reads them: braces counted whatever precedes them."""
    entries = []
    start_re = re.compile(r"@(\w+)\s*\{\s*([^,\s{}]+)\s*,")
    field_re = re.compile(r"\s*(\w+)\s*=\s*\{")
    pos = 0
    while (at := text.find("@", pos)) >= 0:
        m = start_re.match(text, at)
        assert m, f"not an entry at offset {at}: {text[at:at + 60]!r}"
        depth, end = 0, None
        for k in range(text.index("{", at), len(text)):
            if text[k] == "{":
                depth += 1
            elif text[k] == "}":
                depth -= 1
                if depth == 0:
                    end = k
                    break
        assert end is not None, f"entry {m.group(2)} has unbalanced braces"
        body, fields, fpos = text[m.end():end], {}, 0
        while (f := field_re.match(body, fpos)) is not None:
            depth, k = 1, f.end()
            while depth:
                assert k < len(body), f"{m.group(2)}: field {f.group(1)} is not closed"
                depth += {"{": 1, "}": -1}.get(body[k], 0)
                k += 1
            assert f.group(1) not in fields, f"{m.group(2)}: field {f.group(1)} twice"
            fields[f.group(1)] = body[f.end():k - 1]
            fpos = k
            if body[fpos:fpos + 1] == ",":
                fpos += 1
        assert body[fpos:].strip() == "", f"{m.group(2)}: unparsed text {body[fpos:fpos + 60]!r}"
        entries.append((m.group(1), m.group(2), fields))
        pos = end + 1
    return entries


LATEX_ESCAPES = re.compile(r"\\[&%$#_]|\\text(?:backslash|braceleft|braceright|asciitilde|asciicircum)\{\}")


def unescaped_specials(value: str) -> str:
    """What is left of LaTeX's special characters once escapes and $math$ are taken out."""
    text = LATEX_ESCAPES.sub("", value.replace(r"\$", ""))
    text = re.sub(r"\$[^$]*\$", "", text)
    return "".join(c for c in text if c in "&%$#_~^\\")


# --- the site built with a base URL ----------------------------------------------------------

@pytest.fixture(scope="module")
def published(tmp_path_factory) -> Path:
    root = make_project(tmp_path_factory.mktemp("publish") / "proj", EXTRA_PAPERS, copy_papers=True)
    assert main(build_args(root, "--base-url", BASE)) == 0
    return root / "site"


def test_sitemap_lists_every_indexable_page_once_with_absolute_urls(published):
    root = ET.parse(published / urls.SITEMAP).getroot()
    assert root.tag == f"{SITEMAP}urlset"
    locs = [loc.text for loc in root.iter(f"{SITEMAP}loc")]
    assert len(locs) == len(set(locs))
    pages = html_files(published)
    expected = {urls.absolute_url(BASE, path) for path, text in pages.items()
                if path != urls.NOT_FOUND and not is_noindex(text)}
    assert set(locs) == expected
    assert locs[0] == BASE
    for slug in paper_slugs(published):
        assert locs.count(f"{BASE}papers/{slug}.html") == 1
    assert f"{BASE}papers/old-name.html" not in locs   # a redirect is not a page of its own
    assert all(loc.startswith(BASE) for loc in locs)


def test_a_sitemap_over_the_per_file_limit_is_an_index_of_parts_listing_every_page(tmp_path, monkeypatch):
    """Search engines read at most 50,000 URLs a sitemap file; an anthology has more pages than that."""
    root = make_project(tmp_path / "proj", EXTRA_PAPERS, copy_papers=True)
    monkeypatch.setattr(urls, "SITEMAP_URLS_PER_FILE", 7)
    assert main(build_args(root, "--base-url", BASE)) == 0
    site = root / "site"
    index = ET.parse(site / urls.SITEMAP).getroot()
    assert index.tag == f"{SITEMAP}sitemapindex"
    parts = [loc.text for loc in index.iter(f"{SITEMAP}loc")]
    assert parts == [f"{BASE}{urls.sitemap_part(n)}" for n in range(1, len(parts) + 1)]
    locs = []
    for part in parts:
        urlset = ET.parse(site / part.removeprefix(BASE)).getroot()
        assert urlset.tag == f"{SITEMAP}urlset"
        found = [loc.text for loc in urlset.iter(f"{SITEMAP}loc")]
        assert 0 < len(found) <= 7
        locs += found
    pages = html_files(site)
    assert sorted(locs) == sorted(urls.absolute_url(BASE, path) for path, text in pages.items()
                                  if path != urls.NOT_FOUND and not is_noindex(text))
    assert locs[0] == BASE
    assert f"Sitemap: {BASE}sitemap.xml" in (site / urls.ROBOTS).read_text()


def test_sitemaps_of_the_same_pages_are_not_made_again(monkeypatch):
    """An edit adds no page: the sitemaps are the last build's, their bytes made only if asked."""
    from papersite.model import SiteConfig
    from papersite.output import Deferred
    from papersite.publish import feeds
    from papersite.render.specs import PageSpec

    monkeypatch.setattr(urls, "SITEMAP_URLS_PER_FILE", 2)
    config = SiteConfig(title="T", description="D", base_url=BASE)
    plan = [PageSpec(path, "paper", "paper.html", path, "") for path in ("index.html", "papers/a.html", "papers/b.html")]
    first, memo = feeds.sitemap_files(config, plan)
    assert sorted(first) == sorted([urls.SITEMAP, urls.sitemap_part(1), urls.sitemap_part(2)])
    made = []
    sitemaps = feeds.sitemaps
    monkeypatch.setattr(feeds, "sitemaps", lambda *args: made.append(args) or sitemaps(*args))
    again, same = feeds.sitemap_files(config, plan, memo)
    assert same is memo and all(isinstance(value, Deferred) for value in again.values())
    assert {name: value.make() for name, value in again.items()} == first
    assert len(made) == 1   # an output that lacks them all: made once, not once a file
    assert all(value.digest == digest(first[name].encode()) for name, value in again.items())
    grown, _ = feeds.sitemap_files(config, [*plan, PageSpec("papers/c.html", "paper", "paper.html", "c", "")], memo)
    assert not any(isinstance(value, Deferred) for value in grown.values())
    assert f"{BASE}papers/c.html" in grown[urls.sitemap_part(2)]
    moved, _ = feeds.sitemap_files(SiteConfig(title="T", description="D", base_url="https://other.example/"), plan, memo)
    assert not any(isinstance(value, Deferred) for value in moved.values())


def test_feed_is_atom_with_one_absolute_link_per_paper_and_dates_from_content(published):
    root = ET.parse(published / urls.FEED).getroot()
    assert root.tag == f"{ATOM}feed"
    assert root.find(f"{ATOM}id").text == BASE
    assert root.find(f"{ATOM}link[@rel='self']").get("href") == BASE + urls.FEED
    # The day the newest paper was added (the shipped pages carry theirs), not the clock.
    assert root.find(f"{ATOM}updated").text == "2026-12-02T00:00:00Z"
    entries = root.findall(f"{ATOM}entry")
    links = [e.find(f"{ATOM}link[@rel='alternate']").get("href") for e in entries]
    assert sorted(links) == sorted(f"{BASE}papers/{slug}.html" for slug in paper_slugs(published))
    for entry in entries:
        assert entry.find(f"{ATOM}id").text == entry.find(f"{ATOM}link").get("href")
        assert entry.find(f"{ATOM}title").text.strip()
        assert entry.find(f"{ATOM}summary").text.strip()
        assert re.fullmatch(r"2026-12-02T00:00:00Z|\d{4}-01-01T00:00:00Z", entry.find(f"{ATOM}updated").text)
    hostile = next(e for e in entries if e.find(f"{ATOM}id").text.endswith("/hostile-characters.html"))
    assert [a.findtext(f"{ATOM}name") for a in hostile.findall(f"{ATOM}author")] == [
        "Ada Lovelace", "Smith and Wesson", "Élodie Ørsted"]


def test_the_feed_leads_with_the_papers_added_last_as_a_feed_reader_reads_it(tmp_path, cli):
    """A 2017 paper added today is the reading group's news: it comes first, dated the day it was
    added, ahead of this year's papers added before it; a page without `added` has its year."""
    import feedparser

    root = make_project(tmp_path / "proj", {
        "a.md": paper_text(id="f-1", slug="this-year-no-day", title="Old news of this year"),
        "b.md": paper_text(id="f-2", slug="classic", title="A classic read this week", year="2017", added="2026-12-04"),
        "c.md": paper_text(id="f-3", slug="last-month", title="Read last month", added="'2026-11-01'"),
    })
    assert cli(*build_args(root, "--base-url", BASE)).code == 0
    site = root / "site"
    feed = feedparser.parse((site / urls.FEED).read_bytes())
    assert not feed.bozo, feed.get("bozo_exception")
    assert [e.link for e in feed.entries] == [f"{BASE}papers/{slug}.html" for slug in ("classic", "last-month", "this-year-no-day")]
    assert [e.published for e in feed.entries] == ["2026-12-04T00:00:00Z", "2026-11-01T00:00:00Z", "2025-01-01T00:00:00Z"]
    assert feed.feed.updated == "2026-12-04T00:00:00Z"
    page = (site / "papers" / "classic.html").read_text()
    assert '<dt>Added</dt><dd><time datetime="2026-12-04">4 December 2026</time></dd>' in page
    assert "<dt>Added</dt>" not in (site / "papers" / "this-year-no-day.html").read_text()
    records = {r["slug"]: r for r in json.loads((site / "papers.json").read_text())["papers"]}
    assert (records["classic"]["added"], records["last-month"]["added"], records["this-year-no-day"]["added"]) == (
        "2026-12-04", "2026-11-01", None)


def test_each_topic_with_papers_has_a_feed_of_its_own_that_its_page_names(published):
    import feedparser

    export = json.loads((published / "papers.json").read_text(encoding="utf-8"))
    tags, papers = export["tags"], export["papers"]
    assert sorted(p.name for p in (published / "tags").glob("*.xml")) == sorted(f"{t['slug']}.xml" for t in tags if t["papers"])
    for tag in (t for t in tags if t["papers"]):
        page = (published / urls.tag_path(tag["slug"])).read_text(encoding="utf-8")
        assert (f'<link rel="alternate" type="application/atom+xml" title="NeurIPS 2025 Abstracts: {html.escape(tag["name"])}" '
                f'href="{tag["slug"]}.xml">') in page
        assert f'<a href="{tag["slug"]}.xml">Atom feed</a>' in page
        feed = feedparser.parse((published / urls.tag_feed_path(tag["slug"])).read_bytes())
        assert not feed.bozo, (tag["slug"], feed.get("bozo_exception"))
        assert feed.feed.title == f"NeurIPS 2025 Abstracts: {tag['name']}" and feed.feed.link == f"{BASE}tags/{tag['slug']}.html"
        assert sorted(e.link for e in feed.entries) == sorted(p["url"] for p in papers if tag["slug"] in p["tags"])
        assert all(tag["slug"] in [c.term for c in e.tags] for e in feed.entries)


def test_robots_nojekyll_and_feed_discovery(published):
    assert (published / urls.NOJEKYLL).is_file()
    robots = (published / urls.ROBOTS).read_text()
    assert "User-agent: *" in robots and f"Sitemap: {BASE}sitemap.xml" in robots
    home = (published / "index.html").read_text()
    assert '<link rel="alternate" type="application/atom+xml"' in home
    assert 'href="feed.xml"' in home


def test_every_page_has_a_canonical_link_and_link_preview_meta(published):
    for path, text in html_files(published).items():
        canonical = canonical_of(text)
        assert len(canonical) == 1, path
        if is_redirect(text):
            continue   # checked with the alias pages
        assert canonical[0] == urls.absolute_url(BASE, path), path
        if path == urls.NOT_FOUND:
            continue
        if re.fullmatch(r"authors/[^/]+\.html", path) and path != urls.AUTHOR_INDEX:
            # An author page has none (templates/base.html): a preview falls back to its title and description.
            assert not re.search(r'<meta (property="og:|name="twitter:)', text), path
            continue
        assert meta(text, "property", "og:url") == canonical, path
        assert meta(text, "property", "og:site_name") == ["NeurIPS 2025 Abstracts"], path
        assert meta(text, "property", "og:title")[0].strip(), path
        assert meta(text, "property", "og:description")[0].strip(), path
        assert meta(text, "property", "og:description") == meta(text, "name", "description"), path
        assert meta(text, "name", "twitter:card") == ["summary"], path
        # X/Twitter falls back to og:title and og:description: its own copies would only repeat them.
        assert not meta(text, "name", "twitter:title") and not meta(text, "name", "twitter:description"), path


def test_paper_pages_have_highwire_tags_and_json_ld(published):
    slugs = paper_slugs(published)
    authors = {p["slug"]: p["authors"] for p in json.loads((published / "papers.json").read_text(encoding="utf-8"))["papers"]}
    for slug in slugs:
        text = (published / "papers" / f"{slug}.html").read_text(encoding="utf-8")
        title = meta(text, "name", "citation_title")
        assert len(title) == 1 and title == meta(text, "property", "og:title"), slug
        assert meta(text, "name", "citation_publication_date") == ["2025"], slug
        # The proceedings' title in full, as Scholar and Zotero take it; the page names the venue short.
        assert meta(text, "name", "citation_conference_title") == ["Advances in Neural Information Processing Systems"], slug
        assert meta(text, "name", "citation_journal_title") == [], slug
        assert meta(text, "name", "citation_abstract_html_url") == [f"{BASE}papers/{slug}.html"], slug
        blocks = re.findall(r'<script type="application/ld\+json">(.*?)</script>', text, re.S)
        assert len(blocks) == 1, slug
        data = json.loads(blocks[0])
        assert data["@type"] == "ScholarlyArticle" and data["@context"] == "https://schema.org"
        assert data["headline"] == title[0] and data["url"] == f"{BASE}papers/{slug}.html"
        assert data["datePublished"] == "2025"
        assert "abstract" not in data, slug   # the page shows it; JSON-LD does not repeat it
        # A paper without authors (the shipped ones) still has its page, with no empty citation_author.
        assert meta(text, "name", "citation_author") == authors[slug], slug
        assert [a["name"] for a in data.get("author", [])] == authors[slug], slug
    assert [] in authors.values()
    text = (published / "papers" / "hostile-characters.html").read_text(encoding="utf-8")
    assert meta(text, "name", "citation_author") == ["Ada Lovelace", "Smith and Wesson", "Élodie Ørsted"]
    data = json.loads(re.search(r'<script type="application/ld\+json">(.*?)</script>', text, re.S).group(1))
    assert [a["name"] for a in data["author"]] == ["Ada Lovelace", "Smith and Wesson", "Élodie Ørsted"]


def test_papers_bib_parses_with_unique_keys_and_escaped_text(published):
    text = (published / urls.BIBTEX).read_text(encoding="utf-8")
    entries = parse_bibtex(text)
    keys = [key for _, key, _ in entries]
    assert len(keys) == len(set(keys)) == len(paper_slugs(published))
    assert {kind for kind, _, _ in entries} == {"inproceedings"}
    assert "fastsverl2025" in keys
    for _, key, fields in entries:
        assert {"title", "booktitle", "year", "url"} <= set(fields), key
        assert "abstract" not in fields, key   # as arXiv, DBLP and the ACL Anthology give entries
        assert fields["url"].startswith(f"{BASE}papers/")
        for name, value in fields.items():
            if name != "url":
                assert unescaped_specials(value) == "", (key, name, value)
    fields = dict((k, f) for _, k, f in entries)["hostile-characters2025"]
    title = fields["title"]
    for escaped in (r"\&", r"100\%", r"\#1", r"\textbraceleft{}", r"\textasciitilde{}", r"\textasciicircum{}",
                    r"\textbackslash{}", r"Über\_all", "$x_1^{2}$"):
        assert escaped in title, escaped
    assert fields["author"] == "Ada Lovelace and {Smith and Wesson} and Élodie Ørsted"


def test_cite_box_shows_the_same_entry_and_a_copy_button(published):
    bib = (published / urls.BIBTEX).read_text(encoding="utf-8")
    page = (published / "papers" / "hostile-characters.html").read_text(encoding="utf-8")
    box = re.search(r'<pre class="bibtex" id="bibtex"><code>(.*?)</code></pre>', page, re.S)
    assert box and html.unescape(box.group(1)) in bib
    [(_, key, fields)] = parse_bibtex(html.unescape(box.group(1)))
    assert key == "hostile-characters2025" and "abstract" not in fields
    assert 'data-copy-from="bibtex"' in page and 'data-copy-link="permalink"' in page
    assert '<h2 id="cite"><a class="anchor" href="#cite">' in page
    assert '<h2 id="abstract"><a class="anchor" href="#abstract">' in page


PAPER_FIELDS = {"id", "slug", "title_markdown", "title_source", "venue", "year", "added", "authors", "author_slugs", "tags", "code",
                "aliases", "links", "path", "url", "abstract_markdown", "words", "bibtex_key"}


def test_papers_json_lists_every_paper(published):
    raw = (published / urls.EXPORT_JSON).read_text(encoding="utf-8")
    doc = json.loads(raw)
    assert doc["format"] == "papersite-papers/5"
    # The downloads page names the format the file carries (it said /3 after the file became /4).
    downloads = (published / urls.DOWNLOADS).read_text(encoding="utf-8")
    assert re.findall(r"format <code>([^<]*)</code>", downloads) == [doc["format"]]
    slugs = {p.stem for p in (REPO / "content" / "papers").glob("*.md")} | {"hostile-characters", "new-name"}
    assert {p["slug"] for p in doc["papers"]} == slugs
    keys = {key for _, key, _ in parse_bibtex((published / urls.BIBTEX).read_text(encoding="utf-8"))}
    for paper in doc["papers"]:
        assert set(paper) == PAPER_FIELDS, paper["slug"]
        assert paper["url"] == f"{BASE}papers/{paper['slug']}.html"
        assert (published / paper["path"]).is_file()
        assert paper["bibtex_key"] in keys
        assert paper["title_markdown"] and paper["abstract_markdown"] and paper["year"] == 2025
        assert paper["links"] == {}   # the shipped pages have none (tests/test_links.py has pages with links)
        assert len(paper["author_slugs"]) == len(paper["authors"])
        for slug in paper["author_slugs"]:
            assert (published / urls.author_path(slug)).is_file()
    renamed = next(p for p in doc["papers"] if p["slug"] == "new-name")
    assert renamed["aliases"] == ["old-name"]
    assert doc["site"]["base_url"] == BASE
    # The author's text, as written, and once: no plain-text copy beside it.
    hostile = next(p for p in doc["papers"] if p["slug"] == "hostile-characters")
    assert hostile["title_markdown"] == yaml.safe_load(HOSTILE_TITLE)
    assert hostile["abstract_markdown"] == HOSTILE_BODY
    assert raw.count("A second paragraph with") == 1
    assert raw.count("A paper that changed its slug") == 1


def test_home_page_links_the_exports(published):
    home = (published / "index.html").read_text(encoding="utf-8")
    assert 'href="papers.bib"' in home and 'href="papers.json"' in home and 'href="feed.xml"' in home


def test_alias_gets_a_redirect_page_with_refresh_canonical_and_visible_link(published):
    text = (published / "papers" / "old-name.html").read_text(encoding="utf-8")
    assert '<meta http-equiv="refresh" content="0; url=new-name.html">' in text
    assert canonical_of(text) == [f"{BASE}papers/new-name.html"]
    assert '<a href="new-name.html">' in text
    assert is_noindex(text)


def test_redirect_page_forwards_by_script_keeping_the_fragment_and_by_refresh_only_without_script(published):
    """The script (static/redirect.js) adds the reader's ?query#fragment to the target; the refresh,
    which cannot, sits in <noscript> so that it never races the script (templates/redirect.html)."""
    head = (published / "papers" / "old-name.html").read_text(encoding="utf-8").split("</head>")[0]
    scripts = re.findall(r"<script\b[^>]*>", head)
    assert scripts == ['<script src="../assets/redirect.js" data-target="new-name.html">']
    assert (published / urls.asset_path("redirect.js")).read_bytes() == (REPO / "static" / "redirect.js").read_bytes()
    assert re.findall(r"<noscript>(.*?)</noscript>", head) == ['<meta http-equiv="refresh" content="0; url=new-name.html">']
    assert head.count('http-equiv="refresh"') == 1
    # After the CSP that governs it, and before the stylesheet, so it need not wait for that.
    assert head.index("Content-Security-Policy") < head.index("<script") < head.index('rel="stylesheet"')
    assert "location.replace(target + location.search + location.hash)" in (REPO / "static" / "redirect.js").read_text()


def test_404_page_uses_base_href_when_base_url_is_set(published):
    text = (published / urls.NOT_FOUND).read_text(encoding="utf-8")
    assert f'<base href="{BASE}">' in text
    assert text.index("<base") < text.index("<link rel=\"stylesheet\"")
    assert f"data-root=\"{BASE}\"" in text
    assert "base-uri 'self' https://example.org" in text
    assert is_noindex(text)


def test_publish_outputs_are_byte_identical_across_builds(published, tmp_path):
    root = make_project(tmp_path / "again", EXTRA_PAPERS, copy_papers=True)
    assert main(build_args(root, "--base-url", BASE)) == 0
    for name in (urls.SITEMAP, urls.FEED, urls.ROBOTS, urls.BIBTEX, urls.EXPORT_JSON, urls.NOT_FOUND):
        assert (root / "site" / name).read_bytes() == (published / name).read_bytes(), name


# --- without a base URL ----------------------------------------------------------------------

def test_without_base_url_absolute_pieces_are_left_out_with_one_note(tmp_path, cli):
    root = make_project(tmp_path / "proj", EXTRA_PAPERS)
    result = cli(*build_args(root, "--strict"))   # a note, not a warning: --strict still builds
    assert result.code == 0, result.err
    lines = [line for line in result.err.splitlines() if "base_url" in line]
    assert lines == [f"{root / 'site.yml'}: note: {BASE_URL_NOTE}"]
    assert "0 warnings" in result.out and len(result.out.strip().splitlines()) == 1
    site = root / "site"
    assert not (site / urls.SITEMAP).exists() and not (site / urls.FEED).exists() and not list((site / "tags").glob("*.xml"))
    for name in (urls.ROBOTS, urls.NOJEKYLL, urls.BIBTEX, urls.EXPORT_JSON, "papers/old-name.html"):
        assert (site / name).exists(), name
    assert "Sitemap:" not in (site / urls.ROBOTS).read_text()
    for path, text in html_files(site).items():
        assert not canonical_of(text), path
        assert "application/atom+xml" not in text, path
    paper = (site / "papers" / "hostile-characters.html").read_text(encoding="utf-8")
    assert not meta(paper, "name", "citation_abstract_html_url")
    assert meta(paper, "name", "citation_title")
    assert 'href="hostile-characters.html">papers/hostile-characters.html</a>' in paper   # copy link uses the page's address
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="papers.bib"' in home and 'href="feed.xml"' not in home
    entries = parse_bibtex((site / urls.BIBTEX).read_text(encoding="utf-8"))
    assert all("url" not in fields for _, _, fields in entries)


def test_404_without_base_url_has_one_inline_script_allowed_by_its_hash(tmp_path, cli):
    root = make_project(tmp_path / "proj", EXTRA_PAPERS)
    assert cli(*build_args(root)).code == 0
    text = (root / "site" / urls.NOT_FOUND).read_text(encoding="utf-8")
    scripts = re.findall(r"<script>(.*?)</script>", text, re.S)
    assert scripts == [ROOT_SCRIPT]
    assert f"script-src 'self' '{script_hash()}';" in text
    assert "<base" not in text
    # the script runs before anything with a URL is parsed
    assert text.index("<script>") < min(text.index("<link"), text.index("<script src"))
    for path, other in html_files(root / "site").items():
        if path != urls.NOT_FOUND:
            assert "sha256-" not in other, path   # only the 404 page relaxes the CSP


# --- BibTeX details --------------------------------------------------------------------------

def make_paper(slug: str, year: int = 2025, pid: str | None = None) -> Paper:
    return Paper(id=pid or slug, slug=slug, title="T", title_source="given", venue="V", year=year, tags=(),
                 code=(), authors=(), aliases=(), links=(), body="B", path=f"{slug}.md", body_line=1)


def test_bibtex_keys_are_stable_when_papers_are_added():
    before = bibtex_keys([make_paper("fastsverl"), make_paper("zeta")])
    after = bibtex_keys([make_paper("alpha"), make_paper("fastsverl"), make_paper("fastsverl-2"), make_paper("zeta")])
    assert before["fastsverl"] == after["fastsverl"] == "fastsverl2025"
    assert before["zeta"] == after["zeta"]


def test_colliding_bibtex_keys_get_suffixes_in_id_order():
    keys = bibtex_keys([make_paper("a2", 25, "id-2"), make_paper("a", 225, "id-1")])   # both "a225"
    assert keys == {"a": "a225", "a2": "a225a"}


@pytest.mark.parametrize("span, expected", [
    ("$x_1^{2}$", "$x_1^{2}$"),
    (r"$\{a\}$", r"$\lbrace a\rbrace$"),
    ("$50%$", r"$50\%$"),
    (r"\(a+b\)", "$a+b$"),
    ("$x^{2$", None),
    ("$}{$", None),
])
def test_math_spans_are_kept_only_when_safe(span, expected):
    assert escape_math(span) == expected


def test_markdown_to_latex_escapes_every_special_and_keeps_one_line():
    text = markdown_to_latex(HOSTILE_BODY)
    assert r"$\lbrace x\rbrace$" in text and r"\textbraceright{} brace" in text
    assert r"C\# \textasciitilde{} \textasciicircum{} \textbackslash{}" in text and r"snake\_case" in text
    assert r"\$5" in text and r"code\_span" in text and "\n" not in text
    assert unescaped_specials(text) == ""


@pytest.mark.parametrize("title, braced", [
    ("D$^3$RoMa: fast", "{D$^3$RoMa:} fast"),                 # capitals beside math: the word braced whole
    ("QuIP$\\#$: Even", "{QuIP$\\#$:} {Even}"),
    ("Breaking the $\\mathcal{O}(\\sqrt{T})$ Barrier", "Breaking the {$\\mathcal{O}(\\sqrt{T})$} {Barrier}"),
    ("Shapley values for GPU $x$", "Shapley values for {GPU} $x$"),   # the first word's initial is kept by styles
    ("3D scenes", "{3D} scenes"),                               # styles keep the first character, not letter
    ("#Exploration matters", "{{\\#Exploration}} matters"),   # `{\\#...}` alone would be a special character
])
def test_titles_brace_every_word_whose_capitals_a_style_would_lower(title, braced):
    assert markdown_to_latex(title, protect_case=True) == braced


def test_a_topic_name_with_a_comma_is_one_keyword():
    assert keyword_list(["Geometry, symmetry and optimal transport", "Optimization", "A & B"]) == \
        "{Geometry, symmetry and optimal transport}, Optimization, A \\& B"


def test_markdown_to_latex_never_leaves_a_field_unbalanced():
    for text in ["{", "}", "}{", r"\{", r"$\}$", r"$x^{$ and }", "a\\", "`{`", "[}](http://x)"]:
        out = markdown_to_latex(text)
        depth = 0
        for char in out:
            depth += {"{": 1, "}": -1}.get(char, 0)
            assert depth >= 0, (text, out)
        assert depth == 0, (text, out)


# --- the hostile corpus through the exports --------------------------------------------------

def test_hostile_corpus_gives_well_formed_feed_sitemap_bib_and_json(tmp_path):
    hostile = REPO / "tests" / "fixtures" / "hostile"
    if not hostile.is_dir():
        pytest.skip("no hostile corpus")
    root = make_project(tmp_path / "proj")
    for path in sorted(hostile.glob("[0-9]*.md")):
        shutil.copyfile(path, root / "content" / "papers" / path.name)
    tags = yaml.safe_load((root / "content" / "tags.yml").read_text(encoding="utf-8"))
    tags["tags"] += yaml.safe_load((hostile / "extra-tags.yml").read_text(encoding="utf-8"))["tags"]
    (root / "content" / "tags.yml").write_text(yaml.safe_dump(tags, allow_unicode=True), encoding="utf-8")
    assert main(build_args(root, "--base-url", BASE)) == 0
    site = root / "site"
    ET.parse(site / urls.SITEMAP)
    feed = ET.parse(site / urls.FEED).getroot()
    papers = json.loads((site / urls.EXPORT_JSON).read_text(encoding="utf-8"))["papers"]
    assert len(feed.findall(f"{ATOM}entry")) == len(papers)
    entries = parse_bibtex((site / urls.BIBTEX).read_text(encoding="utf-8"))
    assert len({key for _, key, _ in entries}) == len(entries) == len(papers)
    for _, key, fields in entries:
        for name, value in fields.items():
            if name != "url":
                assert unescaped_specials(value) == "", (key, name, value)
    for page in (site / "papers").glob("*.html"):
        for block in re.findall(r'<script type="application/ld\+json">(.*?)</script>', page.read_text(encoding="utf-8"), re.S):
            assert "<" not in block   # tojson escapes every <, so no string can end the element
            json.loads(block)


# --- progress and the summary line -----------------------------------------------------------

class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_draws_on_a_terminal_and_clears_its_line(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    stream = FakeTerminal()
    progress = Progress(stream)
    assert progress.enabled
    progress.stage("rendering pages")
    progress.tick()
    progress.finish()
    assert "rendering pages…" in stream.getvalue() and stream.getvalue().endswith("\r\x1b[K")


@pytest.mark.parametrize("env, tty", [({"CI": "true"}, True), ({}, False), ({"TERM": "dumb"}, True)])
def test_progress_is_quiet_under_ci_a_pipe_or_a_dumb_terminal(monkeypatch, env, tty):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    stream = FakeTerminal() if tty else io.StringIO()
    progress = Progress(stream)
    progress.stage("rendering pages")
    progress.tick()
    progress.finish()
    assert stream.getvalue() == ""


def test_a_build_under_a_pipe_prints_no_progress_and_one_summary_line(tmp_path, cli):
    root = make_project(tmp_path / "proj", EXTRA_PAPERS)
    result = cli(*build_args(root, "--base-url", BASE))
    assert result.code == 0
    assert "\r" not in result.err and "\x1b" not in result.err
    assert re.fullmatch(r"build: \d+ pages \(\d+ files\) written to .* with 0 warnings in \d+\.\d\ds\n", result.out)
    # Built again with nothing changed: nothing is written, and the line says so.
    again = cli(*build_args(root, "--base-url", BASE))
    assert re.fullmatch(r"build: \d+ pages \(\d+ files\) up to date in .*, nothing changed, with 0 warnings in \d+\.\d\ds\n", again.out)


# --- the GitHub Pages workflow ---------------------------------------------------------------

def readme_command() -> str:
    """The README's first fenced command (the install-and-build line), or the documented one."""
    readme = REPO / "README.md"
    if readme.is_file():
        block = re.search(r"^```[a-z]*\n(.*?)^```", readme.read_text(encoding="utf-8"), re.S | re.M)
        if block:
            lines = [line.removeprefix("$ ").strip() for line in block.group(1).splitlines()]
            return " && ".join(line for line in lines if line and not line.startswith("#"))
    return README_COMMAND


def test_workflow_installs_and_builds_as_the_readme_says_and_deploys_to_pages():
    doc = yaml.safe_load((REPO / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8"))
    on = doc.get("on", doc.get(True))   # YAML 1.1 reads a bare `on` as true
    assert "main" in on["push"]["branches"]
    assert doc["permissions"]["pages"] == "write" and doc["permissions"]["id-token"] == "write"
    assert doc["concurrency"]["group"]
    steps = [step for job in doc["jobs"].values() for step in job["steps"]]
    uses = [step["uses"].split("@")[0] for step in steps if "uses" in step]
    for action in ("actions/checkout", "actions/setup-python", "actions/setup-node", "actions/configure-pages",
                   "actions/upload-pages-artifact", "actions/deploy-pages"):
        assert action in uses, action
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-pages-artifact"))
    assert upload["with"]["path"] == "site"
    configure = next(s for s in steps if s.get("uses", "").startswith("actions/configure-pages"))
    commands = [part.strip() for step in steps if "run" in step
                for line in step["run"].splitlines() for part in line.split("&&") if part.strip()]
    readme_parts = [part.strip() for part in readme_command().split("&&")]
    assert readme_parts[:3] == README_COMMAND.split(" && ")[:3], "the README's install line changed"
    position = 0
    for part in readme_parts:   # in the README's order, each as a command (the build with extra options)
        found = next((i for i in range(position, len(commands)) if commands[i].split()[:len(part.split())] == part.split()), None)
        assert found is not None, f"the workflow does not run {part!r}"
        position = found + 1
    build = next(c for c in commands if c.startswith(".venv/bin/python build.py"))
    assert f"--base-url \"${{{{ steps.{configure['id']}.outputs.base_url }}}}/\"" in build
    deploy = next(job for job in doc["jobs"].values() if any(s.get("uses", "").startswith("actions/deploy-pages") for s in job["steps"]))
    assert deploy["environment"]["name"] == "github-pages" and deploy.get("needs")


def test_workflow_restores_the_last_site_and_build_cache_before_building():
    doc = yaml.safe_load((REPO / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8"))
    steps = next(job for job in doc["jobs"].values() if any("build.py" in s.get("run", "") for s in job["steps"]))["steps"]
    cache = next(i for i, s in enumerate(steps) if s.get("uses", "").startswith("actions/cache@"))
    build = next(i for i, s in enumerate(steps) if s.get("run", "").startswith(".venv/bin/python build.py"))
    assert cache < build
    paths = steps[cache]["with"]["path"].split()
    assert set(paths) == {"site", ".papersite-cache"}   # the output the pages are kept from, and the cache beside it
    assert "github.sha" in steps[cache]["with"]["key"] and steps[cache]["with"]["restore-keys"]
