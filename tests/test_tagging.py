"""Tests for automatic tagging: the taxonomy file, the matching rules, and tags on real abstracts."""

from __future__ import annotations

import collections
import gzip
import json
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from papersite.inputs.taxonomy import load_taxonomy
from papersite.model import Tag, Taxonomy
from papersite.ingest.tagging import assign_tags, compile_taxonomy

REPO = Path(__file__).resolve().parent.parent
TAGS_FILE = REPO / "content" / "tags.yml"
SEED_FILE = REPO / "content" / "sources" / "neurips2025-abstracts.txt"
CORPUS_FILE = REPO / "bench" / "data" / "ml-abstracts.jsonl.gz"
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


TAXONOMY = load_taxonomy(TAGS_FILE)
SLUGS = {tag.slug for tag in TAXONOMY.tags}

# A small hand-made taxonomy for the matching rules, so they do not depend on the real phrases.
TOY = Taxonomy(
    tags=(
        Tag("agents", "Multi-agent systems", "d", ("multi agent", "swarm")),
        Tag("diffusion", "Diffusion models", "d", ("diffusion model", "score matching")),
        Tag("robots", "Robotics", "d", ("robot", "navigation", "sim to real")),
        Tag("llm", "Language models", "d", ("language model", "web navigation")),
        Tag("graphs", "Graphs", "d", ("graph", "policy")),
        Tag("rl", "Reinforcement learning", "d", ("reinforcement learning", "policy")),
        Tag("general", "General", "d", ()),
    ),
    fallback="general",
)


def toy(title: str = "", abstract: str = "", keywords: tuple[str, ...] = (), max_tags: int = 4) -> tuple[str, ...]:
    return assign_tags(title, abstract, keywords, TOY, max_tags)


# --- the taxonomy file -------------------------------------------------------------


def test_tags_file_is_a_mapping_of_fallback_and_tags():
    data = yaml.safe_load(TAGS_FILE.read_text(encoding="utf-8"))
    assert set(data) == {"fallback", "tags"}
    assert TAGS_FILE.read_text(encoding="utf-8").startswith("#")   # explains itself to the hand-editor


def test_tags_file_has_enough_complete_tags():
    data = yaml.safe_load(TAGS_FILE.read_text(encoding="utf-8"))
    assert len(data["tags"]) >= 20
    for tag in data["tags"]:
        assert set(tag) == {"slug", "name", "description", "phrases"}, tag
        assert SLUG_RE.match(tag["slug"]), tag["slug"]
        assert tag["name"].strip() and tag["description"].strip(), tag["slug"]
        assert isinstance(tag["phrases"], list), tag["slug"]
        for phrase in tag["phrases"]:
            assert isinstance(phrase, str) and phrase == phrase.lower().strip() and phrase, (tag["slug"], phrase)
    slugs = [tag["slug"] for tag in data["tags"]]
    assert len(slugs) == len(set(slugs))


def test_fallback_is_a_tag_without_phrases_and_every_other_tag_has_some():
    by_slug = TAXONOMY.by_slug()
    assert TAXONOMY.fallback in by_slug
    assert by_slug[TAXONOMY.fallback].phrases == ()
    assert all(tag.phrases for tag in TAXONOMY.tags if tag.slug != TAXONOMY.fallback)


def test_no_phrase_is_listed_twice_under_one_tag():
    for tag in TAXONOMY.tags:
        assert len(tag.phrases) == len(set(tag.phrases)), tag.slug


# --- matching rules ----------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "multi-agent", "multi agent", "multiagent", "Multi–Agent", "MULTI-\nAGENT", "multi-agents",
])
def test_hyphen_space_dash_and_case_variants_match(text):
    assert toy(abstract=f"We study {text} coordination.") == ("agents",)


@pytest.mark.parametrize("text", ["diffusion model", "diffusion models", "Diffusion-Models", "DIFFUSION MODEL"])
def test_singular_phrase_matches_plural_and_any_case(text):
    assert toy(abstract=f"{text} are popular.") == ("diffusion",)


@pytest.mark.parametrize("text", ["robotic", "robotics", "roboto", "paragraphs", "graphical models", "swarming"])
def test_phrases_match_whole_words_only(text):
    assert toy(abstract=f"Some {text} here.") == ("general",)


def test_the_longest_phrase_claims_its_words():
    # "web navigation" belongs to llm, so its "navigation" is no evidence for robots.
    assert toy(abstract="An agent for web navigation. Web navigation is hard.") == ("llm",)


def test_a_phrase_listed_under_two_tags_counts_for_both():
    assert toy(abstract="A policy, and another policy.") == ("graphs", "rl")


def test_title_weighs_more_than_abstract():
    tags = toy(title="A robot", abstract="A language model and a language model.")
    assert tags == ("robots", "llm")


def test_repeated_mentions_count():
    assert toy(abstract="diffusion models " * 3 + "and a robot.") == ("diffusion",)
    assert toy(abstract="diffusion models " * 2 + "and a robot, a robot.") == ("diffusion", "robots")


def test_a_passing_mention_is_dropped_beside_a_main_topic():
    abstract = "A diffusion model. " * 11 + "A robot. A robot."
    assert toy(abstract=abstract) == ("diffusion",)


def test_equal_weak_evidence_keeps_all_tied_tags_in_taxonomy_order():
    assert toy(abstract="A robot and a swarm.") == ("agents", "robots")


def test_no_match_gives_the_fallback():
    assert toy(title="Untitled", abstract="Nothing relevant at all.") == ("general",)
    assert assign_tags("", "", [], TAXONOMY) == (TAXONOMY.fallback,)


def test_keywords_map_to_tags_and_rank_first():
    abstract = "A diffusion model. " * 5
    assert toy(abstract=abstract, keywords=("Sim-to-Real",)) == ("robots", "diffusion")


@pytest.mark.parametrize("keyword", ["Robotics", "robots", "ROBOT", "sim to real transfer"])
def test_keyword_matches_by_name_slug_or_phrase(keyword):
    assert toy(keywords=(keyword,)) == ("robots",)


def test_keywords_naming_no_tag_are_ignored():
    assert toy(abstract="A swarm.", keywords=("learning", "benchmark")) == ("agents",)


def test_keywords_never_pick_the_fallback():
    assert toy(abstract="A swarm.", keywords=("General",)) == ("agents",)


def test_keyword_tags_named_most_often_come_first():
    assert toy(keywords=("swarm", "robot", "robot navigation")) == ("robots", "agents")


def test_max_tags_caps_the_result():
    abstract = "A robot, a swarm, a diffusion model and a language model."
    assert len(toy(abstract=abstract)) == 4
    assert toy(abstract=abstract, max_tags=1) == ("agents",)
    with pytest.raises(ValueError):
        toy(abstract=abstract, max_tags=0)


def test_taxonomy_is_compiled_once():
    assert compile_taxonomy(TAXONOMY) is compile_taxonomy(TAXONOMY)


def test_deterministic_across_calls_and_recompilation():
    abstract = "A robot and a swarm use a policy in a graph with a diffusion model."
    first = toy(abstract=abstract)
    compile_taxonomy.cache_clear()
    assert toy(abstract=abstract) == first
    assert all(toy(abstract=abstract) == first for _ in range(5))


def test_taxonomy_without_phrases_tags_everything_with_the_fallback():
    bare = Taxonomy(tags=(Tag("only", "Only", "d", ()),), fallback="only")
    assert assign_tags("Robots", "Robots everywhere.", ["robot"], bare) == ("only",)


# --- the seed abstracts ------------------------------------------------------------

# Each seed abstract, found by a phrase unique to it, and the tags it should get, main topic first.
SEED_TAGS = {
    "We introduce FastSVERL": ["reinforcement-learning", "interpretability"],
    "We propose HYPRL": ["reinforcement-learning", "multi-agent-systems"],
    "Riemannian AdamW": ["geometric-learning", "computer-vision", "optimization", "representation-learning"],
    "We present Wan-Move": ["video-generation", "generative-models"],
    "Edge Attribution Patching": ["interpretability", "large-language-models"],
    "Multi-arm bandit experimental designs": ["statistics", "bandits-online-learning"],
    "DTW-certified robust defense": ["time-series", "robustness"],
    "autoregressive adversarial post-training": ["video-generation", "generative-models"],
    "We introduce REDOUBT": ["robotics", "uncertainty", "safety-alignment"],
    "bilevel optimization framework": ["optimization", "generative-models"],
    "diffusion transformer (DiT)": ["diffusion-models", "neural-architectures", "deep-learning-theory"],
    "decentralized multi-agent SSPs": ["multi-agent-systems", "reinforcement-learning", "bandits-online-learning",
                                       "learning-theory"],
    "realizable continual linear regression": ["learning-theory", "optimization", "continual-learning"],
    "Friedkin–Johnsen": ["graph-learning"],
    "we introduce iFinder": ["large-language-models", "vision-language", "reasoning", "interpretability"],
    "Prior Guidance": ["diffusion-models", "reinforcement-learning"],
    "with a focus on SimCLR": ["representation-learning"],
    "participatory budgeting": ["game-theory"],
    "shortest-path tasks in layered graphs": ["reasoning", "large-language-models", "nlp", "graph-learning"],
}

needs_seeds = pytest.mark.skipif(not SEED_FILE.exists(), reason=f"{SEED_FILE} is not here")


def read_seed_abstracts() -> list[str]:
    """The seed file: a heading line, then one abstract per blank-line-separated paragraph."""
    paragraphs = re.split(r"\n\s*\n", SEED_FILE.read_text(encoding="utf-8"))
    return [p.strip() for p in paragraphs[1:] if p.strip()]


@needs_seeds
def test_every_seed_abstract_has_exactly_one_expectation():
    abstracts = read_seed_abstracts()
    assert len(abstracts) == 19
    for marker in SEED_TAGS:
        assert sum(marker in abstract for abstract in abstracts) == 1, marker


@needs_seeds
@pytest.mark.parametrize("marker", list(SEED_TAGS))
def test_seed_abstract_gets_its_topics(marker):
    abstract = next(a for a in read_seed_abstracts() if marker in a)
    tags = assign_tags("", abstract, [], TAXONOMY)
    expected = SEED_TAGS[marker]
    assert set(tags) == set(expected)
    assert tags[0] == expected[0]


# --- the whole corpus --------------------------------------------------------------


@pytest.mark.skipif(not CORPUS_FILE.exists(), reason=f"{CORPUS_FILE} is not here")
def test_corpus_is_covered_without_catch_all_tags():
    with gzip.open(CORPUS_FILE, "rt", encoding="utf-8") as corpus:
        records = [json.loads(line) for line in corpus]
    results = [assign_tags(r["title"], r["abstract"], r["keywords"], TAXONOMY) for r in records]
    counts = collections.Counter(slug for tags in results for slug in tags)
    assert counts[TAXONOMY.fallback] / len(records) <= 0.03
    assert max(counts.values()) / len(records) <= 0.2          # no tag swallows the corpus
    assert set(counts) == SLUGS                                  # every topic is used
    assert all(1 <= len(tags) <= 4 for tags in results)


# --- any input ---------------------------------------------------------------------

PHRASES = sorted({phrase for tag in TAXONOMY.tags for phrase in tag.phrases})
phrase_soup = st.lists(
    st.one_of(st.sampled_from(PHRASES), st.text(max_size=12), st.sampled_from([" ", "-", "–", "\n", "s", "."])),
    max_size=30,
).map("".join)
any_text = st.one_of(st.text(max_size=400), phrase_soup)


@settings(max_examples=300, deadline=None)
@given(title=any_text, abstract=any_text, keywords=st.lists(any_text, max_size=5))
def test_any_text_gets_one_to_four_known_tags(title, abstract, keywords):
    tags = assign_tags(title, abstract, keywords, TAXONOMY)
    assert 1 <= len(tags) <= 4
    assert len(set(tags)) == len(tags)
    assert set(tags) <= SLUGS
    assert (TAXONOMY.fallback in tags) == (tags == (TAXONOMY.fallback,))
    assert assign_tags(title, abstract, keywords, TAXONOMY) == tags
