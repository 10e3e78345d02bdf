"""LaTeX text syntax the converter reads: the macros it knows, matched braces, TeX's blank skipping."""

from __future__ import annotations

import re

EMPHASIS_MACROS = {"emph": "*", "textit": "*", "textsl": "*", "textbf": "**"}

PLAIN_MACROS = frozenset(
    "underline textrm textsc mbox hbox textnormal textup textsf textmd text uline "
    "textsuperscript textsubscript fbox".split())

CITE_MACROS = frozenset(
    "cite citep citet citealp citealt citeauthor citeyear parencite textcite "
    "autocite Cite".split())

SWITCHES = {
    "em": "*", "it": "*", "itshape": "*", "sl": "*", "slshape": "*",
    "bf": "**", "bfseries": "**", "tt": "`", "ttfamily": "`",
    **dict.fromkeys(
        "rm rmfamily sc scshape sf sffamily normalfont upshape mdseries tiny "
        "scriptsize footnotesize small normalsize large Large LARGE huge Huge".split(), ""),
}  # declarations that style the rest of their group; "" means no Markdown style

TEXT_SYMBOLS = {
    "ldots": "…", "dots": "…", "textellipsis": "…", "LaTeX": "LaTeX", "TeX": "TeX",
    "LaTeXe": "LaTeX2ε", "textmu": "µ", "texttimes": "×", "textendash": "–",
    "textemdash": "—", "textquoteleft": "‘", "textquoteright": "’",
    "textquotedblleft": "“", "textquotedblright": "”", "textregistered": "®",
    "texttrademark": "™", "textcopyright": "©", "copyright": "©", "textdegree": "°",
    "S": "§", "P": "¶", "dag": "†", "ddag": "‡", "textbullet": "•",
    "textasciitilde": "~", "textless": "<", "textgreater": ">", "textbar": "|",
    "ss": "ß", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "o": "ø", "O": "Ø",
    "aa": "å", "AA": "Å", "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ",
    "eg": "e.g.", "ie": "i.e.", "etal": "et al.", "wrt": "w.r.t.", "etc": "etc.",
    "vs": "vs.", "cf": "cf.", "newline": " ", "linebreak": " ", "quad": " ",
    "qquad": " ", "enspace": " ", "thinspace": " ", "par": "\n\n",
    **dict.fromkeys(
        "noindent medskip smallskip bigskip hfill centering clearpage newpage "
        "xspace protect relax ignorespaces".split(), ""),
}

TEXT_ESCAPES = {"%": "%", "&": "&", "#": "\\#", "_": "\\_", "$": "\\$", "{": "\\{", "}": "\\}"}

TEXT_CONTROL_SPACES = {" ": " ", "\n": " ", "\t": " ", ",": " ", ";": " ", ":": " ",
                       ">": " ", "\\": " ", "-": "", "/": "", "@": ""}

ACCENTS = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303",
    "=": "\u0304", ".": "\u0307", "c": "\u0327", "v": "\u030c", "u": "\u0306",
    "H": "\u030b", "k": "\u0328", "r": "\u030a", "d": "\u0323", "b": "\u0331",
}
SPACING_ACCENTS = {"~": "~", "^": "^"}  # `\~{}` is a plain tilde

COMMAND_HANDLERS = {
    "texttt": "parse_texttt", "url": "parse_url", "href": "parse_href",
    "footnote": "parse_footnote", "begin": "parse_begin", "end": "parse_end",
    "item": "parse_item", "nocite": "parse_nocite",
}

# Math macros by the number of arguments they take. Met outside math (`\\sqrt{x}` in a sentence), the
# importer writes them, with those arguments, as the plain text of the formula (text/mathtext.py).
MATH_MACRO_ARITY = {
    **dict.fromkeys("""
    Delta Gamma Im Lambda Leftarrow Leftrightarrow Omega Phi Pi Pr Psi Re Rightarrow Sigma Theta Upsilon
    Vert Xi aleph alpha angle approx arccos arcsin arctan arg argmax argmin ast beta bigcap bigcup bmod
    bot bullet cap cdot cdots checkmark chi circ colon coloneqq cong coprod cos cosh cot coth csc cup
    dagger ddots deg degree delta det dim displaystyle div dots downarrow ell emptyset enspace epsilon
    equiv eta exists exp forall gamma gcd ge geq geqslant gets gg gtrsim hbar hom iff iint implies in
    inf infty int iota kappa ker lVert lambda land langle lbrace lceil ldots le leftarrow leftrightarrow
    leq leqslant lesssim lfloor lg lim liminf limits limsup ll ln lnot log longrightarrow lor lvert
    mapsto max medspace mid min mod models mp mu nabla ne nearrow neg negthinspace neq ni nolimits
    nonumber notag notin nu odot oint omega oplus otimes parallel partial perp phi pi pm prec preceq
    prime prod propto psi qquad quad rVert rangle rbrace rceil rfloor rho rightarrow rvert scriptstyle
    searrow sec setminus sigma sim simeq sin sinh square star subset subseteq succ succeq sum sup supset
    supseteq surd tan tanh tau textstyle theta thickspace thinspace times to top triangle triangleq
    uparrow upsilon varepsilon varnothing varphi varpi varrho varsigma vartheta vdash vdots vee vert
    wedge xi zeta
    """.split(), 0),
    **dict.fromkeys("""
    Big Bigg Biggl Biggr Bigl Bigr acute bar big bigg biggl biggr bigl bigr bm boldsymbol boxed breve
    check ddot dot emph grave hat hbox left mathbb mathbf mathbin mathcal mathfrak mathit mathnormal
    mathop mathrel mathring mathrm mathscr mathsf mathtt mbox middle not operatorname overline pmb right
    sqrt text textbf textit textnormal textrm textsf texttt tilde underline vec widehat widetilde
    """.split(), 1),
    **dict.fromkeys("binom cfrac dbinom dfrac frac overset stackrel tbinom textcolor tfrac underset".split(), 2),
}

LIST_MARKERS = {"itemize": "- ", "enumerate": "1. ", "description": "- "}

_BRACE_TOKEN = re.compile(r"\\[\s\S]|[{}]")


def is_known_text_macro(name: str) -> bool:
    return (name in SWITCHES or name in EMPHASIS_MACROS or name in PLAIN_MACROS
            or name in CITE_MACROS or name in COMMAND_HANDLERS or name in TEXT_SYMBOLS
            or name in ACCENTS or name in MATH_MACRO_ARITY)


def match_braces(text: str, math: dict[int, int]) -> tuple[dict[int, int], bool]:
    """Map each `{` outside math to its `}`; also say whether any brace is unmatched."""
    closing: dict[int, int] = {}
    stack: list[int] = []
    stray = False
    pos = 0
    for span_start, span_end in [*sorted(math.items()), (len(text), len(text))]:
        for m in _BRACE_TOKEN.finditer(text, pos, span_start):
            if m.group() == "{":
                stack.append(m.start())
            elif m.group() == "}":
                if stack:
                    closing[stack.pop()] = m.start()
                else:
                    stray = True
        pos = span_end
    return closing, stray or bool(stack)


def skip_blanks(text: str, pos: int, end: int) -> int:
    """Skip spaces and at most one newline, as TeX does before an argument."""
    while pos < end and text[pos] in " \t":
        pos += 1
    if pos < end and text[pos] == "\n":
        pos += 1
        while pos < end and text[pos] in " \t":
            pos += 1
    return pos
