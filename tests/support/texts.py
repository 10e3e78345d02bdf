"""Small deterministic texts for the tests of related papers, terms and the map."""

from __future__ import annotations

import re

from hypothesis import strategies as st

GRAPHS = "Graph neural networks aggregate messages from neighbouring nodes to learn node embeddings for link prediction."
PROTEINS = "Protein folding predicts the three-dimensional structure of amino acid chains from their sequence."
BANDITS = "Contextual bandits balance exploration and exploitation when choosing arms to minimise regret."
DIFFUSION = "Diffusion generates images by gradually denoising Gaussian noise with a learned score network."
SHAPLEY = "Shapley values give feature attributions that explain individual predictions of black-box classifiers."

TOPICS = [GRAPHS, PROTEINS, BANDITS, DIFFUSION, SHAPLEY]


def words_of(text: str) -> set[str]:
    return set(re.findall(r"[^\W\d_]+", text.lower()))


def corpus(size: int) -> list[str]:
    """Deterministic varied texts: topic sentences mixed with a rotating pool of filler words."""
    pool = sorted(words_of(" ".join(TOPICS)))
    return [
        f"{TOPICS[i % len(TOPICS)]} {' '.join(pool[(i * 7 + j * 3) % len(pool)] for j in range(6))}"
        for i in range(size)
    ]


# Text made of LaTeX's and Markdown's special pieces, for properties of the converters.
LATEX_PIECES = st.sampled_from([
    "$", "$$", "\\$", "\\(", "\\)", "\\[", "\\]", "{", "}", "\\", "\\\\", "~", "`", "``", "'", "''",
    "--", "---", "-", "<!--", "-->", "\n", "\n\n", " ", "x", "é", "_", "*", "%", "#", "&", "^",
    "\\emph{", "\\textbf{", "\\textit{", "\\texttt{", "\\cite{", "\\citep[", "]", "[", "\\url{",
    "\\href{", "\\footnote{", "\\foo{", "\\bar", "\\sqrt{", "\\alpha", "\\times", "{\\em ", "{\\bf ",
    "\\begin{itemize}", "\\item", "\\end{itemize}", "\\begin{equation}", "\\end{equation}",
    "\\\"", "\\'", "\\~", "\\%", "\\_", "\\#", "\\&", "\\{", "\\}", "https://a.org/", "@", ",",
])
latex_like = st.one_of(st.text(), st.lists(LATEX_PIECES, max_size=40).map("".join))
