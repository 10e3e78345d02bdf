"""Tests for papersite.ingest.latex: LaTeX text markup to Markdown.

Most inputs are excerpts copied verbatim from ../shared/data/neurips2025-abstracts.txt
("NeurIPS 2025 #n" counts abstracts after the heading line) and
../shared/data/ml-abstracts.jsonl ("source_id ...").
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.texts import latex_like

from papersite.ingest.latex import latex_to_markdown
from papersite.text.mathspans import find_math_spans


def md(text: str) -> str:
    """The Markdown only, asserting that the conversion raised no warning."""
    markdown, warnings = latex_to_markdown(text)
    assert warnings == []
    return markdown


# ---------------------------------------------------------------- emphasis and friends

def test_emph_from_neurips2025_17():
    assert md(r"based on the concept of \emph{approximate sufficient statistics}, which") == (
        "based on the concept of *approximate sufficient statistics*, which")


def test_nested_bold_italic_from_neurips2025_16():
    assert md(r"we propose \textbf{\textit{Prior Guidance}} (PG), a novel") == (
        "we propose ***Prior Guidance*** (PG), a novel")


def test_textit_from_neurips2025_6():
    assert md(r"which we call \textit{simulation with optimism}. Using") == (
        "which we call *simulation with optimism*. Using")


@pytest.mark.parametrize("source, expected", [
    (r"\textsl{TranSync}", "*TranSync*"),
    (r"\textbf{evolutional dropout}", "**evolutional dropout**"),
    (r"\textbf{a \emph{b} c}", "**a *b* c**"),
    (r"\emph{\textbf{x}}", "***x***"),
    (r"\texttt{MMD-critic}", "`MMD-critic`"),
    (r"\texttt{a\_b}", "`a_b`"),
    (r"\texttt{x`y}", "``x`y``"),
    (r"\underline{lin}ear", "linear"),
    (r"\textrm{x} \textsc{UCSG} \mbox{box} \hbox{single}", "x UCSG box single"),
])
def test_text_style_macros(source, expected):
    assert md(source) == expected


def test_emphasis_keeps_edge_spaces_outside_the_markers():
    # `* x *` would not be emphasis in Markdown.
    assert md(r"a \emph{ spaced } b") == "a  *spaced*  b"
    assert md(r"a \emph{} b") == "a  b"


def test_old_style_declarations_from_real_abstracts():
    # source_ids 7072 ({\em ...}), 7414 ({\it ...}), 7088 ({\bf ho}moto{\bf p}y), 7053
    assert md(r"the framework of {\em blind regression} motivated by") == (
        "the framework of *blind regression* motivated by")
    assert md(r"For the {\it detection} problem") == "For the *detection* problem"
    assert md(r"a novel {\bf ho}moto{\bf p}y  {\bf s}moothing (HOPS)") == (
        "a novel **ho**moto**p**y  **s**moothing (HOPS)")
    assert md(r"{\em  from random initialization}.") == "*from random initialization*."


def test_underline_with_unbraced_argument():
    # source_id 11805: LinBET
    assert md(r"\underline{lin}ear stochastic {\underline b}andits with h{\underline e}avy-{\underline t}ailed") == (
        "linear stochastic bandits with heavy-tailed")


# ---------------------------------------------------------------- citations

def test_cite_after_tie_from_neurips2025_17():
    assert md(r"beyond its original definition in~\cite{oko2025statistical} for contrastive") == (
        "beyond its original definition in [@oko2025statistical] for contrastive")


def test_cite_with_several_keys():
    # source_id 7333
    assert md(r"the framework of Arjevani et al. \cite{arjevani2015lower,arjevani2016iteration} to provide") == (
        "the framework of Arjevani et al. [@arjevani2015lower; @arjevani2016iteration] to provide")


@pytest.mark.parametrize("source, expected", [
    # source_ids 9429, 7147, 11360, 11929; the others are made up
    (r"spherical Gaussians \citep{vempalawang}.", "spherical Gaussians [@vempalawang]."),
    (r"approach \citet{candes2015phase}, which", "approach [@candes2015phase], which"),
    (r"see \citealp{a, b}", "see [@a; @b]"),
    (r"Blum  et al.~\cite{BHPQ17}, in which", "Blum  et al. [@BHPQ17], in which"),
    (r"as shown by Valiant and Valiant \cite{Valiant--Valiant2011}.",
     "as shown by Valiant and Valiant [@Valiant--Valiant2011]."),
    (r"in \cite[p.~3]{k}", "in [@k, p. 3]"),
    (r"in \citep[see][ch.~2]{k}", "in [see @k, ch. 2]"),
    (r"none\citealp{} here", "none here"),
    (r"\nocite{x}gone", "gone"),
])
def test_citation_forms(source, expected):
    assert md(source) == expected


# ---------------------------------------------------------------- dashes, quotes, ties

def test_em_dash_from_neurips2025_17():
    assert md("Contrastive learning---a modern approach to extract useful representations") == (
        "Contrastive learning—a modern approach to extract useful representations")


@pytest.mark.parametrize("source, expected", [
    # source_ids 7301, 7067, 11332; the rest are made up
    ("a multi-step inertial Forward--Backward splitting", "a multi-step inertial Forward–Backward splitting"),
    ("anchor words -- i.e., words", "anchor words – i.e., words"),
    ("alpha waves (8--12\\,Hz)", "alpha waves (8–12 Hz)"),
    ("a ---- b", "a ---- b"),
    ("line\n---\nrule", "line\n---\nrule"),
    ("<!-- comment -->", "<!-- comment -->"),
    ("a <-- b --> c", "a <-- b --> c"),
    ("|---|---|", "|---|---|"),
    ("code at https://github.com/a--b/c---d.", "code at https://github.com/a--b/c---d."),
    ("run `--fast` now", "run `--fast` now"),
    ("math $a--b$ stays", "math $a--b$ stays"),
])
def test_dashes(source, expected):
    assert md(source) == expected


@pytest.mark.parametrize("source, expected", [
    # source_ids 7289, 7195 (``..."), 7381 (''greedy''), 7372, 11884 (`...'), 11644
    ("shows that ``Bregman distortions'' (employing", "shows that “Bregman distortions” (employing"),
    ('referred to as ``data-dependent noise". We', "referred to as “data-dependent noise”. We"),
    ("Inspired by the ''greedy'' nature", "Inspired by the “greedy” nature"),
    ("variables (called `blocks'). GRAB", "variables (called ‘blocks’). GRAB"),
    ("we call `Krazy World': a difficult", "we call ‘Krazy World’: a difficult"),
    ("`don't panic' it's", "‘don't panic’ it's"),
    ("named ``\\emph{user intent}'' to govern", "named “*user intent*” to govern"),
    # Markdown code spans (ICML 2024, source_id ZQcqXCuoxD, abridged) are not quotes
    ("to either `listen`, `broadcast`, or", "to either `listen`, `broadcast`, or"),
])
def test_quotes(source, expected):
    assert md(source) == expected


@pytest.mark.parametrize("source, expected", [
    # source_ids 7418, 7164, 7205 (~ meaning "about"), 7148 (~ in a URL)
    ("based on i.i.d.~samples", "based on i.i.d. samples"),
    ("analysis~(PCA) is", "analysis (PCA) is"),
    ("reduces the error by ~1%.", "reduces the error by ~1%."),
    ("http://www.stat.ucla.edu/~junhua.mao/x.html", "http://www.stat.ucla.edu/~junhua.mao/x.html"),
    ("a $x$~b", "a $x$ b"),
])
def test_ties(source, expected):
    assert md(source) == expected


# ---------------------------------------------------------------- escapes, symbols, accents

def test_percent_from_neurips2025_6():
    assert md(r"reducing confidence interval widths by up to 50\%, with drastic") == (
        "reducing confidence interval widths by up to 50%, with drastic")


def test_escapes_that_matter_to_markdown_stay_escaped():
    # `\_ \# \$ \{ \}` are Markdown escapes too; `\% \&` become the bare character.
    assert md(r"\% \& \# \_ \$ \{ \}") == r"% & \# \_ \$ \{ \}"


def test_escaped_dollar_never_starts_math():
    markdown = md(r"costs \$5 and $x$ or \$6")
    assert markdown == r"costs \$5 and $x$ or \$6"
    assert [markdown[s:e] for s, e in find_math_spans(markdown)] == ["$x$"]


def test_unmatched_dollar_is_escaped_literal():
    # CoRL 2024 (source_id cvAIaS6V2I): a price, not math
    assert md("which costs $500, OPEN TEACH enables") == r"which costs \$500, OPEN TEACH enables"


@pytest.mark.parametrize("source, expected", [
    # source_ids 11588, 7414, 7291, 7187, 8918, 8905, 4252, 4088, 3976, 11065
    (r"\ldots and \dots", "… and …"),
    (r"a subset of \LaTeX.~The model; \TeX", "a subset of LaTeX. The model; TeX"),
    (r"first\\second", "first second"),
    (r"Decelle et al.\ conjectured", "Decelle et al. conjectured"),
    (r"Nystr\"{o}m and H\"olderian", "Nyström and Hölderian"),
    (r"Nos\'{e}-Poincar\'{e} and {\L}ojasiewicz", "Nosé-Poincaré and Łojasiewicz"),
    (r"AUC{\textmu} and 1 {\texttimes} 1", "AUCµ and 1 × 1"),
    (r"Lee \etal 2017 (\eg, doubly)", "Lee et al. 2017 (e.g., doubly)"),
    (r"na\"{\i}ve \c{c}a \v{s}", "naïve ça š"),
    # The accent straight on \i, as the ACL Anthology and DBLP write it (it gave "Loıc")
    (r"Lo{\"\i}c Barrault, Mart{\'\i}nez, {\^\i}le, Guaran\'\i", "Loïc Barrault, Martínez, île, Guaraní"),
])
def test_symbols_and_accents(source, expected):
    assert md(source) == expected


# ---------------------------------------------------------------- URLs, links, footnotes

def test_url_with_newline_inside_braces():
    # source_id 11664, the abstract with `\n` inside \url{}
    assert md("The code for BAL is available at \\url{https://tinyurl.com/ycxsaewr\n}.") == (
        "The code for BAL is available at https://tinyurl.com/ycxsaewr.")


def test_url_after_tie():
    # source_id 8870
    assert md(r"publicly available at~\url{https://github.com/sagiebenaim/DistanceGAN}.") == (
        "publicly available at https://github.com/sagiebenaim/DistanceGAN.")


def test_url_escapes_are_unescaped():
    assert md(r"\url{https://x.org/a\_b\%20c}") == "https://x.org/a_b%20c"


def test_href():
    assert md(r"see \href{https://a.org/x}{the \emph{project} page}.") == (
        "see [the *project* page](https://a.org/x).")
    assert md(r"\href{https://a.org/x}{}") == "https://a.org/x"


def test_footnote_with_url_from_real_abstract():
    # source_id 4319
    assert md(r"decoding approaches.\footnote{Code to reproduce the results in this paper is available at "
              r"\url{https://github.com/pytorch/fairseq}}") == (
        "decoding approaches. (Code to reproduce the results in this paper is available at "
        "https://github.com/pytorch/fairseq)")


def test_footnote_replaces_spaces_before_it_by_one():
    assert md(r"complexity of \footnote{ suppresses a logarithmic factor.} in") == (
        "complexity of (suppresses a logarithmic factor.) in")


# ---------------------------------------------------------------- math

def test_math_spans_are_untouched():
    text = r"a $\ell_1$ norm, $O(\sqrt{d/n})$ and $$\sum_i x_i -- y$$ end"
    assert md(text) == text


def test_paren_and_bracket_math_become_dollars():
    assert md(r"a \(x + y\) b \[ z \] c") == "a $x + y$ b $$ z $$ c"


def test_display_math_from_real_abstract():
    # source_id 11507 (\[ ... \] over several lines)
    source = "upper bounded by \n\\[\nO\\left[\\frac{1}{\\epsilon}\\right] ~.\n\\]\nFor fixed values"
    assert md(source) == "upper bounded by \n$$\nO\\left[\\frac{1}{\\epsilon}\\right] ~.\n$$\nFor fixed values"


def test_equation_environment_from_real_abstract():
    # source_id 11526
    source = "then \n\\begin{equation*}\\Pr[ x ] \\ge 1 - \\delta \\;.\\end{equation*}\nThese bounds"
    assert md(source) == "then \n$$\\Pr[ x ] \\ge 1 - \\delta \\;.$$\nThese bounds"


def test_adjacent_math_spans_from_real_abstracts():
    # source_ids IpSKpOY2EH (`$\sim$$30\%$`) and 8837 (`128$\times$64`)
    assert md(r"reduce up to $\sim$$30\%$ of the peak memory") == r"reduce up to $\sim$$30\%$ of the peak memory"
    assert md(r"both 128$\times$64 re-identification") == r"both 128$\times$64 re-identification"


def test_math_with_nested_dollars_in_text_is_left_as_is():
    # ICML 2024, source_id NCT3w7VKjo
    text = r"named $\textit{$\underline{G}$raph $\underline{P}$U Learning}$ (GPL)"
    assert md(text) == text


def test_missing_closing_dollar_costs_only_one_dollar():
    # NeurIPS 2018, source_id 11305: the first `$` has no partner; `$D^c$` is still math.
    markdown, warnings = latex_to_markdown(r"we derive a $O(D^c) regret bound, where $D^c$ is the diameter")
    assert markdown == r"we derive a \$O(D^c) regret bound, where $D^c$ is the diameter"
    assert warnings == []


def test_dollars_across_a_paragraph_break_are_literal():
    assert md("a $x\n\ny$ b") == "a \\$x\n\ny\\$ b"


def test_math_macros_outside_math_become_text_with_a_warning():
    # excerpts of source_ids 7326 and 9263, joined
    markdown, warnings = latex_to_markdown(r"up to 5\times gains, from O((1-\sqrt{\mu/L})^{k})")
    assert markdown == "up to 5× gains, from O((1-√(μ/L))^k)"
    assert warnings == [
        "LaTeX math macro \\times outside math; wrote it as plain text",
        "LaTeX math macro \\sqrt outside math; wrote it as plain text",
    ]


# ---------------------------------------------------------------- lists, unknown macros, broken input

def test_itemize_becomes_a_markdown_list():
    # source_id 11929
    source = ("We show that\n\\begin{itemize}\n\t\\item Provided \\textit{i.e.}, $n$.\n"
              "\t\\item Provided more.\n\\end{itemize}\nUnder both assumptions")
    assert md(source) == "We show that\n\n- Provided *i.e.*, $n$.\n- Provided more.\n\nUnder both assumptions"


def test_unknown_macro_with_argument_keeps_text_and_warns():
    # source_id 11106 (\emc); \foo is made up
    assert latex_to_markdown(r"The notion of \emc{margin}, minimum") == (
        "The notion of margin, minimum", ["unknown LaTeX macro \\emc outside math; kept its text"])
    assert latex_to_markdown(r"\foo{bar} and \foo{baz}") == (
        "bar and baz", ["unknown LaTeX macro \\foo outside math; kept its text"])


def test_unknown_macro_without_argument_keeps_its_name():
    # source_id 3776
    assert latex_to_markdown(r"we propose \manifoldmixup{}, a simple regularizer") == (
        "we propose manifoldmixup, a simple regularizer",
        ["unknown LaTeX macro \\manifoldmixup outside math; kept its name"])


def test_unknown_declaration_at_group_start_is_dropped():
    # source_id 11735: {\rc ...} is a colour switch
    assert latex_to_markdown("simply compressing\n{\\rc exchanged information,\neven in} the network") == (
        "simply compressing\nexchanged information,\neven in the network",
        ["unknown LaTeX declaration \\rc outside math; dropped it"])


def test_stray_braces_do_not_crash_or_loop():
    # source_ids 7143 (truncated inside \cite{) and 9243 (a lone `}`)
    assert latex_to_markdown(r"hashing schemes~\cite{Proc:OneHashLSH") == (
        "hashing schemes {Proc:OneHashLSH", ["unbalanced brace in LaTeX text; kept it as is"])
    assert latex_to_markdown("information exposure} in a social network") == (
        "information exposure} in a social network", ["unbalanced brace in LaTeX text; kept it as is"])
    assert latex_to_markdown("{{{{") == ("{{{{", ["unbalanced brace in LaTeX text; kept it as is"])


def test_deep_nesting_does_not_recurse_forever():
    markdown, _ = latex_to_markdown("{" * 5000 + "x" + "}" * 5000)
    assert "x" in markdown
    assert latex_to_markdown(r"\emph" * 3000 + "{x}")[0].count("x") == 1


def test_markdown_already_in_openreview_abstracts_passes_through():
    # ICML 2024 (source_id GcZjpKA37R) uses **bold**; the autolink is made up
    text = "we introduce **LangCell**, the first **Lang**uage-**Cell** model <https://x.org/a--b>."
    assert md(text) == text


# ---------------------------------------------------------------- properties



def math_spans(text: str) -> list[str]:
    return [text[s:e] for s, e in find_math_spans(text)]


@settings(max_examples=400, deadline=None)
@given(latex_like)
def test_latex_to_markdown_never_raises(text):
    markdown, warnings = latex_to_markdown(text)
    assert isinstance(markdown, str)
    assert isinstance(warnings, list) and all(isinstance(w, str) for w in warnings)


@settings(max_examples=400, deadline=None)
@given(latex_like)
def test_math_in_input_comes_out_unchanged_and_pairs_the_same(text):
    markdown, _ = latex_to_markdown(text)
    # `$..$` and `$$..$$` byte for byte; `\(..\)` etc. as their dollar form. The
    # output has no other math, so a renderer using find_math_spans sees the same.
    expected = [latex_to_markdown(span)[0] for span in math_spans(text)]
    assert math_spans(markdown) == [span for span in expected if span]
    for span in math_spans(text):
        if span.startswith("$"):
            assert span in markdown


@settings(max_examples=300, deadline=None)
@given(st.text(), st.text(alphabet="ab \\{}^_", max_size=20))
def test_math_after_any_paragraph_survives(before, math):
    span = "$" + (math.strip().rstrip("\\") or "x") + "$"
    markdown, _ = latex_to_markdown(f"{before}\n\n{span} done")
    assert markdown.endswith(f"{span} done")
