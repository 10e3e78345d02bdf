"""Tests for papersite.ingest.titles and slugs: the titles, names and slugs derived for the shipped seed
abstracts (an editorial table the rules must reproduce), the rules one by one, and
properties that must hold for any text at all."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from papersite.ingest.latex import latex_to_markdown
from papersite.ingest.slugs import derive_slug, slugify, unique_slug
from papersite.ingest.title_cleaning import clean_text
from papersite.ingest.title_vocabulary import DANGLING, TITLE_MAX
from papersite.ingest.titles import derive_title, method_name

ROOT = Path(__file__).resolve().parent.parent
SEED_FILE = ROOT / "content" / "sources" / "neurips2025-abstracts.txt"
# The larger corpus lives beside the repository, not in it; tests over it skip without it.
CORPUS_FILE = ROOT / "bench" / "data" / "ml-abstracts.jsonl.gz"
SLUG_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def read_seed_abstracts() -> list[str]:
    """The shipped format: a heading line, then one abstract per blank-line-separated paragraph."""
    paragraphs = [p.strip() for p in SEED_FILE.read_text(encoding="utf-8").split("\n\n")]
    return [p for p in paragraphs[1:] if p]


SEEDS = read_seed_abstracts()

# What a reader should see for each seed abstract, in file order: (title, method name, slug).
EXPECTED = [
    ("FastSVERL: A scalable method for explaining reinforcement learning by approximating Shapley values",
     "FastSVERL", "fastsverl"),
    ("HYPRL: A specification-guided reinforcement learning framework that learns control policies",
     "HYPRL", "hyprl"),
    ("A derivation for Riemannian AdamW that helps increase hyperbolic generalization ability",
     None, "derivation-riemannian-adamw"),
    ("Wan-Move: A simple and scalable framework that brings motion control to video generative models",
     "Wan-Move", "wan-move"),
    ("EAP-GP: Edge Attribution Patching with GradPath",
     "EAP-GP", "eap-gp"),
    ("A simulation-based approach for conducting hypothesis tests and constructing confidence intervals",
     None, "simulation-based-approach"),
    ("A DTW-certified robust defense in time-series anomaly detection",
     None, "dtw-certified-robust-defense"),
    ("AAPT: Autoregressive adversarial post-training",
     "AAPT", "aapt"),
    ("REDOUBT: A systematic safety validation framework for autonomous vehicle motion planning",
     "REDOUBT", "redoubt"),
    ("A bilevel optimization framework that reformulates adversarial learning problems",
     None, "bilevel-optimization-framework"),
    ("Locality of attention maps in a DiT’s early layers are closely associated with generalization",
     None, "locality-attention-maps"),
    ("Decentralized multi-agent SSPs under linear function approximation",
     None, "decentralized-multi-agent-ssps"),
    ("Realizable continual linear regression under random task orderings",
     None, "realizable-continual-linear-regression"),
    ("Fast computation and optimization of opinion-based quantities in the Friedkin–Johnsen model",
     None, "fast-computation-optimization"),
    ("iFinder: A structured semantic grounding framework that decouples perception from reasoning",
     "iFinder", "ifinder"),
    ("Prior Guidance: A guided sampling framework that replaces the standard Gaussian prior",
     "Prior Guidance", "prior-guidance"),
    ("A theoretical framework for analyzing data augmentation-based contrastive learning",
     None, "theoretical-framework-analyzing-data"),
    ("Strategic behavior of project proposers in the context of approval-based participatory budgeting",
     None, "strategic-behavior-project-proposers"),
    ("A controlled setting based on shortest-path tasks in layered graphs",
     None, "controlled-setting-shortest-path-tasks"),
]


def assert_reads_as_title(title: str, abstract: str | None = None) -> None:
    """The promises every derived title keeps; with `abstract`, also that no word was cut."""
    assert title and title == title.strip()
    assert len(title) <= TITLE_MAX
    assert title[-1] not in ",.;:-(", title
    assert title.split()[-1].lower() not in DANGLING, title
    assert not re.search(r"\*|\[@|\\(?:textbf|emph|cite)", title), title
    if abstract is not None:
        prose = clean_text(abstract)
        for word in title.replace(":", " ").split():
            word = word.strip(",")
            assert re.search(rf"(?<!\w){re.escape(word)}(?!\w)", prose, re.I), f"{word!r} cut in {title!r}"


# --- the seed abstracts -------------------------------------------------------------

def test_seed_file_has_nineteen_abstracts():
    assert len(SEEDS) == len(EXPECTED) == 19


@pytest.mark.parametrize(("abstract", "expected"), list(zip(SEEDS, EXPECTED)), ids=[e[2] for e in EXPECTED])
def test_seed_title_method_and_slug(abstract, expected):
    title, method, slug = expected
    assert derive_title(abstract) == title
    assert method_name(abstract) == method
    assert derive_slug(title, method) == slug


@pytest.mark.parametrize("abstract", SEEDS, ids=[e[2] for e in EXPECTED])
def test_seed_titles_are_whole_words_within_limit(abstract):
    assert_reads_as_title(derive_title(abstract), abstract)


@pytest.mark.parametrize(("abstract", "expected"), list(zip(SEEDS, EXPECTED)), ids=[e[2] for e in EXPECTED])
def test_seed_title_is_the_same_after_latex_conversion(abstract, expected):
    """The importer derives titles from the Markdown body, not from the raw LaTeX."""
    body = latex_to_markdown(abstract)[0]
    assert (derive_title(body), method_name(body)) == expected[:2]


def test_seed_slugs_are_unique():
    slugs = [derive_slug(derive_title(a), method_name(a)) for a in SEEDS]
    assert len(set(slugs)) == len(slugs)


# --- method names ----------------------------------------------------------------------

@pytest.mark.parametrize(
    ("abstract", "name"),
    [
        ("We propose FooNet, a network for bar.", "FooNet"),
        ("In this work, we introduce a novel method called BarGAN, which learns things.", "BarGAN"),
        ("We propose Gradient Path Integration (GPI), a method for attribution.", "GPI"),
        ("This paper introduces federated adaptive asynchronous optimization, named FADAS, a novel method.", "FADAS"),
        ("We present Zeno, a technique to make training tolerant to faulty workers.", "Zeno"),
        ("We propose a Runtime Neural Pruning (RNP) framework which prunes networks.", "RNP"),
    ],
)
def test_method_name_patterns(abstract, name):
    assert method_name(abstract) == name


@pytest.mark.parametrize(
    "abstract",
    [
        "We propose a novel framework, which learns representations of graphs.",
        "We introduce the first certified defense for time series.",
        "We propose LLM-based agents, a family of planners.",
        "We propose a Markov chain Monte Carlo (MCMC) scheme to perform state inference.",
        "We study GANs, a popular class of generative models.",
        "",
    ],
)
def test_method_name_ignores_generic_phrases(abstract):
    assert method_name(abstract) is None


# --- titles -----------------------------------------------------------------------------

def test_title_from_study_sentence_stops_at_appositive():
    abstract = "We study sparse recovery under noise, a classic problem. It matters."
    assert derive_title(abstract) == "Sparse recovery under noise"


def test_title_drops_markdown_emphasis_and_citations():
    abstract = "Prior work [@smith2020] fails. We propose **BoldNet**, a *fast* method for sorting lists [@doe21]."
    assert derive_title(abstract) == "BoldNet: A fast method for sorting lists"


def test_title_avoids_formula_when_words_read_on():
    abstract = "We study the sampling policy $q_t$ at each stage $t$ of adaptive importance sampling."
    assert derive_title(abstract) == "The sampling policy at each stage of adaptive importance sampling"


def test_title_from_to_infinitive_reads_as_gerund():
    assert derive_title("We propose to adaptively normalize the targets used in learning.") == (
        "Adaptively normalizing the targets used in learning"
    )


def test_title_keeps_styled_first_word_lower_case():
    assert derive_title("We introduce iThing, a tool for tidy titles.").startswith("iThing: ")


def test_long_title_is_cut_before_a_qualifier():
    abstract = (
        "We propose a simulation-based approach for conducting hypothesis tests and constructing "
        "confidence intervals for arm specific means and their differences."
    )
    title = derive_title(abstract)
    assert title == "A simulation-based approach for conducting hypothesis tests and constructing confidence intervals"


def test_fallback_is_a_shortened_first_sentence():
    abstract = (
        "Despite their success on images, diffusion models have fallen short on discrete data domains "
        "such as natural language and source code, and many other structured formats too."
    )
    title = derive_title(abstract)
    assert title.startswith("Diffusion models have fallen short on discrete data domains")
    assert_reads_as_title(title, abstract)


def assert_formulas_whole(title: str, abstract: str) -> None:
    """Every `$` of the title belongs to a formula the abstract has, whole."""
    from papersite.text.mathspans import find_math_spans

    source = clean_text(abstract)
    whole = {source[a:b] for a, b in find_math_spans(source)}
    spans = find_math_spans(title)
    assert all(title[a:b] in whole for a, b in spans), title
    assert title.count("$") == sum(title[a:b].count("$") for a, b in spans), title


def test_a_title_is_never_cut_inside_a_formula():
    r"""A method named in math (from the benchmark corpus): the title used to end
    `Named $\textit{$\underline{G}$raph $\underline{P}`, half a formula."""
    abstract = (
        "While Positive-Unlabeled (PU) learning is vital in many real-world scenarios, its application to graph data "
        "still remains under-explored. To address this challenge, we introduce a new method, named "
        "$\\textit{$\\underline{G}$raph $\\underline{P}$U Learning with $\\underline{L}$abel Propagation Loss}$ (GPL). "
        "Specifically, GPL considers learning from PU nodes along with an intermediate heterophily reduction."
    )
    title = derive_title(latex_to_markdown(abstract)[0])
    assert_formulas_whole(title, abstract)
    assert_reads_as_title(title, abstract)


@pytest.mark.parametrize("text", ["", "   ", "$x^2$", "(((", "\u202e\u200b", "a" * 300, "http://example.com/x"])
def test_title_of_degenerate_text_is_never_empty(text):
    title = derive_title(text)
    assert title and len(title) <= TITLE_MAX


# --- slugs ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("Café Straße Ørsted", "cafe-strasse-orsted"),
        ("  Hello,   World!! ", "hello-world"),
        ("../../etc/passwd", "etc-passwd"),
        ("ab\u202ecd\u200bef\ufeff", "abcdef"),
        ("中文标题", "paper"),
        ("", "paper"),
    ],
)
def test_slugify_examples(text, slug):
    assert slugify(text) == slug


def test_slugify_cuts_on_a_hyphen_boundary():
    assert slugify("alpha beta gamma delta", max_len=16) == "alpha-beta-gamma"
    assert slugify("alpha beta gamma delta", max_len=15) == "alpha-beta"


def test_derive_slug_prefers_method_then_leading_noun_phrase():
    assert derive_slug("Anything at all", "Wan-Move") == "wan-move"
    assert derive_slug("Realizable continual linear regression under random task orderings", None) == (
        "realizable-continual-linear-regression"
    )
    assert derive_slug("SqueezeLLM: Dense-and-sparse quantization", None) == "squeezellm"


def test_unique_slug_counts_up():
    assert unique_slug("x", set()) == "x"
    assert unique_slug("x", {"x"}) == "x-2"
    assert unique_slug("x", frozenset({"x", "x-2", "x-3"})) == "x-4"


# --- properties -------------------------------------------------------------------------

FRAGMENTS = [
    "We propose", "we introduce", "In this paper,", "We study", "we show that", "a novel", "the first",
    "framework", "FooNet", "Wan-Move", "(ABC)", "Long Name", ",", ".", ";", ":", "$x$", "$$", "\\textbf{",
    "}", "**", "*", "[@key]", "which", "that", "to", "by", "of", "the", "and", "é", "ß", "\u202e", "\u200b",
    "—", "---", "(", ")", "\n\n", "e.g.", "w.r.t.", "called", "named", "is proposed", "to learn",
]
abstract_like = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=12)), max_size=40).map(" ".join)
any_text = st.one_of(st.text(), abstract_like)


@settings(max_examples=300, deadline=None)
@given(any_text)
def test_derivations_never_raise_and_titles_keep_their_promises(text):
    title = derive_title(text)
    method = method_name(text)
    assert title and len(title) <= TITLE_MAX
    assert_formulas_whole(title, text)
    assert method is None or method.strip()
    assert SLUG_RE.match(derive_slug(title, method))


@settings(max_examples=300, deadline=None)
@given(any_text, st.one_of(st.none(), any_text))
def test_derive_slug_never_raises(title, method):
    slug = derive_slug(title, method)
    assert SLUG_RE.match(slug) and len(slug) <= 60


@settings(max_examples=500, deadline=None)
@given(any_text, st.integers(min_value=1, max_value=120))
def test_slugify_output_shape(text, max_len):
    slug = slugify(text, max_len)
    assert SLUG_RE.match(slug)
    assert len(slug) <= max_len
    assert "/" not in slug and ".." not in slug


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=20), st.sets(st.text(max_size=24), max_size=20))
def test_unique_slug_is_never_taken(base, taken):
    taken = taken | {base, f"{base}-2"}
    assert unique_slug(base, taken) not in taken


# --- the larger corpus, when it is there --------------------------------------------------

def test_corpus_titles_keep_their_promises():
    with gzip.open(CORPUS_FILE, "rt", encoding="utf-8") as corpus:
        lines = corpus.read().splitlines()
    for line in lines[::12]:
        abstract = json.loads(line)["abstract"]
        assert_reads_as_title(derive_title(abstract))
