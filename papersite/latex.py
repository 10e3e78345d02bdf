"""LaTeX markup in abstracts to Markdown, and Markdown (with math) to plain text.

Pure functions, standard library only; none of them raises for any str input.

- `latex_to_markdown(text)` -> (markdown, warnings), used by `import`: turns LaTeX
  *text* markup outside math (`\\emph`, `\\cite`, `\\url`, ``` ``quotes'' ```,
  `---`, `{\\bf x}`, accents, ...) into Markdown. Math is left byte for byte, except
  that `\\(..\\)` becomes `$..$` and `\\[..\\]` / `\\begin{equation}..` become `$$..$$`.
- `math_to_text(latex)` -> readable Unicode (`O(\\sqrt{K})` -> `O(√K)`), never with
  a backslash or a curly brace.
- `flatten_markdown(markdown)` -> one line of plain text for summaries and search.

Contract with the Markdown renderer:

- Math is `$...$` and `$$...$$`. `find_math_spans` is the one definition of where
  math is (pairing within a paragraph, see its docstring); reuse it instead of a
  second regex. In what `latex_to_markdown` returns, a `$` that is not a math
  delimiter is always written `\\$`, so the renderer must treat `\\$` as a literal
  dollar (Python-Markdown does not escape `$` by default).
- LaTeX escapes of characters that are special in Markdown too (`\\_ \\# \\$ \\{ \\}`)
  are kept as they are: the same bytes are the same escape in Markdown, and a bare
  `_` could start emphasis. `\\%` and `\\&` become the bare character.
- Citations become Pandoc syntax `[@key]` / `[@a; @b]`.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata

__all__ = ["latex_to_markdown", "math_to_text", "flatten_markdown", "find_math_spans"]

# ---------------------------------------------------------------- math spans

_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n")
_MATH_ENVS = ("equation", "equation*", "displaymath", "align", "align*")
_MATH_OPENER = re.compile(
    r"\\begin\{(%s)\}|\\[\s\S]|\$\$|\$" % "|".join(map(re.escape, _MATH_ENVS)))
_ENV_CLOSERS = {env: re.compile(r"\\end\{%s\}|\\[\s\S]" % re.escape(env)) for env in _MATH_ENVS}
_INLINE_CLOSER = re.compile(r"\\[\s\S]|[{}$]")
_DISPLAY_CLOSER = re.compile(r"\\[\s\S]|\$\$")
_ESCAPE_PAIR = re.compile(r"\\[\s\S]")
_CLOSER_LOOKS_LIKE_OPENER = re.compile(r"\s\$[\w\\{]")


def find_math_spans(text: str) -> list[tuple[int, int]]:
    """Return (start, end) of every math span in `text`, delimiters included.

    Math is `$..$`, `$$..$$`, `\\(..\\)`, `\\[..\\]` and `\\begin{equation}` (also
    `equation*`, `displaymath`, `align`, `align*`). A span never crosses a blank
    line. Backslash escapes (`\\$`, `\\\\`) are skipped. An inline `$` closes at the
    next `$` outside braces (`$\\text{$x$ y}$` is one span), and a candidate closer
    that looks like the next opener (space before it, a word character after it,
    as in `$O(n) regret, where $D$`) makes the first `$` literal. An unmatched
    delimiter is literal text.
    """
    if "$" not in text and "\\" not in text:
        return []
    spans: list[tuple[int, int]] = []
    limit = -1
    pos = 0
    while (m := _MATH_OPENER.search(text, pos)) is not None:
        start = m.start()
        if start >= limit:
            limit = _find_paragraph_end(text, start)
        end = _find_math_end(text, m, limit)
        if end is None:
            pos = start + 1 if m.group() == "$" else m.end()
        else:
            spans.append((start, end))
            pos = end
    return spans


def _find_paragraph_end(text: str, pos: int) -> int:
    m = _PARAGRAPH_BREAK.search(text, pos)
    return m.start() if m else len(text)


def _find_math_end(text: str, opener: re.Match, limit: int) -> int | None:
    token = opener.group()
    if opener.group(1):
        env = opener.group(1)
        return _find_token_end(text, opener.end(), limit, _ENV_CLOSERS[env], "\\end{%s}" % env)
    if token == "$":
        return _find_inline_end(text, opener.end(), limit)
    if token == "$$":
        return _find_token_end(text, opener.end(), limit, _DISPLAY_CLOSER, "$$")
    if token == "\\(":
        return _find_token_end(text, opener.end(), limit, _ESCAPE_PAIR, "\\)")
    if token == "\\[":
        return _find_token_end(text, opener.end(), limit, _ESCAPE_PAIR, "\\]")
    return None


def _find_token_end(text: str, pos: int, limit: int, pattern: re.Pattern, closer: str) -> int | None:
    for m in pattern.finditer(text, pos, limit):
        if m.group() == closer:
            return m.end() if m.start() > pos else None  # empty math is not math
    return None


def _find_inline_end(text: str, pos: int, limit: int) -> int | None:
    depth = 0
    nested = None  # first `$` inside braces: the closer if braces never balance
    for m in _INLINE_CLOSER.finditer(text, pos, limit):
        token = m.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
        elif token == "$":
            if depth <= 0:
                return _accept_inline_closer(text, pos, m.start())
            nested = m.start() if nested is None else nested
    return _accept_inline_closer(text, pos, nested) if nested is not None else None


def _accept_inline_closer(text: str, content_start: int, at: int) -> int | None:
    if at == content_start or _CLOSER_LOOKS_LIKE_OPENER.match(text, at - 1):
        return None
    return at + 1


def _math_body(span: str) -> str:
    """The LaTeX inside a math span, without its delimiters."""
    if span.startswith("$$"):
        return span[2:-2]
    if span.startswith("$"):
        return span[1:-1]
    if span.startswith("\\begin"):
        return span[span.index("}") + 1:span.rindex("\\end")]
    return span[2:-2]  # \( \) or \[ \]


_ALIGNED_ENVS = {"align", "align*"}


def _math_to_markdown(span: str) -> str:
    """`$..$` and `$$..$$` unchanged; the other spellings rewritten to dollars."""
    if span.startswith("$"):
        return span
    body = _math_body(span)
    if span.startswith("\\("):
        body = _escape_bare_dollars(body.strip())
        return f"${body}$" if body else ""
    if span.startswith("\\begin"):
        env = span[len("\\begin{"):span.index("}")]
        if env in _ALIGNED_ENVS:
            body = "\\begin{aligned}" + body + "\\end{aligned}"
    body = _escape_bare_dollars(body)
    return f"$${body}$$" if body.strip() else ""


_BARE_DOLLAR = re.compile(r"(\\[\s\S])|\$")


def _escape_bare_dollars(latex: str) -> str:
    # A raw `$` inside \( \) would end the `$..$` we write early.
    return _BARE_DOLLAR.sub(lambda m: m.group(1) or "\\$", latex)


# ---------------------------------------------------------------- math to text

_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε",
    "varepsilon": "ε", "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ",
    "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ",
    "pi": "π", "varpi": "ϖ", "rho": "ρ", "varrho": "ϱ", "sigma": "σ",
    "varsigma": "ς", "tau": "τ", "upsilon": "υ", "phi": "φ", "varphi": "φ",
    "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ",
    "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ",
    "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}  # \epsilon and \phi read as the everyday glyphs ε and φ, not ϵ and ϕ

# Relations get spaces around them (TeX spaces them itself, whatever the source
# says): `p\gg n` reads "p ≫ n". Edge spaces vanish when the result is stripped.

_MATH_SYMBOLS = {
    **_GREEK,
    "leq": " ≤ ", "le": " ≤ ", "leqslant": " ≤ ", "geq": " ≥ ", "ge": " ≥ ", "geqslant": " ≥ ",
    "neq": " ≠ ", "ne": " ≠ ", "approx": " ≈ ", "sim": " ∼ ", "simeq": " ≃ ", "cong": " ≅ ",
    "equiv": " ≡ ", "propto": " ∝ ", "ll": " ≪ ", "gg": " ≫ ", "lesssim": " ≲ ", "gtrsim": " ≳ ",
    "prec": " ≺ ", "succ": " ≻ ", "preceq": " ⪯ ", "succeq": " ⪰ ", "subset": " ⊂ ",
    "subseteq": " ⊆ ", "supset": " ⊃ ", "supseteq": " ⊇ ", "in": " ∈ ", "notin": " ∉ ",
    "ni": " ∋ ", "cup": "∪", "cap": "∩", "bigcup": "∪", "bigcap": "∩",
    "setminus": "∖", "emptyset": "∅", "varnothing": "∅", "forall": "∀",
    "exists": "∃", "neg": "¬", "lnot": "¬", "land": "∧", "wedge": "∧", "lor": "∨",
    "vee": "∨", "oplus": "⊕", "otimes": "⊗", "odot": "⊙", "circ": "∘",
    "bullet": "•", "cdot": "·", "cdots": "⋯", "ldots": "…", "dots": "…",
    "vdots": "⋮", "ddots": "⋱", "times": "×", "div": "÷", "pm": "±", "mp": "∓",
    "ast": "∗", "star": "⋆", "infty": "∞", "partial": "∂", "nabla": "∇",
    "sum": "Σ", "prod": "∏", "coprod": "∐", "int": "∫", "iint": "∬", "oint": "∮",
    "to": " → ", "rightarrow": " → ", "longrightarrow": " ⟶ ", "leftarrow": " ← ",
    "gets": " ← ", "Rightarrow": " ⇒ ", "Leftarrow": " ⇐ ", "implies": " ⇒ ",
    "leftrightarrow": " ↔ ", "Leftrightarrow": " ⇔ ", "iff": " ⇔ ", "mapsto": " ↦ ",
    "uparrow": "↑", "downarrow": "↓", "langle": "⟨", "rangle": "⟩",
    "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋", "mid": "|",
    "vert": "|", "lvert": "|", "rvert": "|", "Vert": "‖", "lVert": "‖",
    "rVert": "‖", "parallel": "∥", "perp": "⊥", "top": "⊤", "bot": "⊥",
    "prime": "′", "dagger": "†", "ell": "ℓ", "hbar": "ℏ", "Re": "ℜ", "Im": "ℑ",
    "aleph": "ℵ", "angle": "∠", "triangle": "△", "square": "□", "surd": "√",
    "colon": ":", "lbrace": "｛", "rbrace": "｝", "degree": "°", "checkmark": "✓",
    "triangleq": " ≜ ", "coloneqq": " ≔ ", "models": " ⊨ ", "vdash": " ⊢ ",
    "nearrow": "↗", "searrow": "↘",
    "quad": " ", "qquad": " ", "enspace": " ", "thinspace": " ", "medspace": " ",
    "thickspace": " ", "negthinspace": "", "displaystyle": "", "textstyle": "",
    "scriptstyle": "", "limits": "", "nolimits": "", "nonumber": "", "notag": "",
    "left": "", "right": "", "middle": "", "big": "", "Big": "", "bigg": "",
    "Bigg": "", "bigl": "", "bigr": "", "Bigl": "", "Bigr": "", "biggl": "",
    "biggr": "", "Biggl": "", "Biggr": "", "mod": "mod", "bmod": "mod",
}

_MATH_FUNCTIONS = frozenset(
    "log ln lg exp sin cos tan sec csc cot arcsin arccos arctan sinh cosh tanh "
    "coth max min sup inf lim liminf limsup arg argmax argmin det dim ker deg gcd "
    "hom Pr".split())

_MATH_WRAPPERS = frozenset(
    "mathcal mathscr mathfrak mathbf mathit mathrm mathsf mathtt mathnormal "
    "boldsymbol bm pmb text textrm textbf textit textsf texttt textnormal mbox "
    "hbox operatorname mathop mathbin mathrel emph underline boxed".split())

_MATH_DROP_ARG = frozenset("label tag hspace vspace color phantom hphantom vphantom".split())

_MATH_SECOND_ARG = frozenset("textcolor overset underset stackrel".split())

_MATH_FRACTIONS = frozenset("frac dfrac tfrac cfrac".split())

_MATH_BINOMIALS = frozenset("binom dbinom tbinom".split())

_MATH_DELIMITER_SIZES = frozenset(
    "left right middle big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr".split())

_MATH_ACCENTS = {
    "hat": "\u0302", "widehat": "\u0302", "tilde": "\u0303", "widetilde": "\u0303",
    "bar": "\u0304", "overline": "\u0304", "vec": "\u20d7", "dot": "\u0307",
    "ddot": "\u0308", "check": "\u030c", "breve": "\u0306", "acute": "\u0301",
    "grave": "\u0300", "mathring": "\u030a",
}

_DOUBLE_STRUCK = str.maketrans({
    "R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "P": "ℙ", "E": "𝔼", "H": "ℍ", "1": "𝟙",
})

_MATH_CONTROL_SYMBOLS = {
    ",": " ", ";": " ", ":": " ", ">": " ", " ": " ", "\n": " ", "\t": " ", "!": "",
    "\\": " ", "{": "｛", "}": "｝", "|": "‖",
}  # any other `\<char>` is the char itself; `{`/`}` must never reach the output

_SUPERSCRIPTS = dict(zip(
    "0123456789+-−=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWαβγδεθιφχ⊤∘*∗′†",
    "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵅᵝᵞᵟᵋᶿᶥᵠᵡᵀ°**′†"))
_SUBSCRIPTS = dict(zip(
    "0123456789+-−=()aehijklmnoprstuvxβγρφχ",
    "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ"))
_NO_CARET = frozenset("*′†°")  # x^* reads better as x* than as x^*

_MATH_CHARS = {"{": "", "}": "", "~": " ", "&": " ", "$": "", "'": "′",
               "=": " = ", "<": " < ", ">": " > "}

_MATH_TOKEN = re.compile(r"\\(?:([A-Za-z]+)\*?|([\s\S]))?|(\s+)|([\s\S])")
_SIMPLE_OPERAND = re.compile(r"[√∛∜]?[\w.′\u0300-\u036f\u20d7]+")  # with accents
_WORD = re.compile(r"\w+")
_MAX_MATH_DEPTH = 40  # deeper nesting is flattened instead of recursed into


@functools.lru_cache(maxsize=8192)
def math_to_text(latex: str) -> str:
    """Flatten a LaTeX math expression (no dollars) to readable Unicode text.

    `O(\\sqrt{K})` -> `O(√K)`, `\\ell_p` -> `ℓₚ`, `\\mathbb{R}^d` -> `ℝᵈ`,
    `\\frac{a+b}{2}` -> `(a+b)/2`. Scripts use Unicode sub/superscripts when every
    character has one, else `^`/`_`. Unknown commands lose their backslash. The
    result has no backslash and no `{` `}`, and its whitespace is collapsed.
    """
    text = _MathReader(latex).read_all()
    return " ".join(unicodedata.normalize("NFC", text).split())


class _MathReader:
    """Recursive-descent reader over LaTeX math tokens, producing plain text."""

    def __init__(self, latex: str):
        self.tokens = [_classify_math_token(m) for m in _MATH_TOKEN.finditer(latex)]
        self.i = 0

    def read_all(self) -> str:
        return self.read_sequence(0)

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def read_sequence(self, depth: int) -> str:
        """Read up to an unmatched `}` (left for the caller) or the end."""
        out: list[str] = []
        while (token := self.peek()) is not None:
            kind, value = token
            if kind == "char" and value == "}":
                if depth > 0:
                    break
                self.i += 1  # a stray `}` at top level
            elif kind == "char" and value in "^_":
                self.i += 1
                out.append(_to_script(self.read_atom(depth + 1), value))
            elif kind == "space":
                self.i += 1
                out.append(" ")
            else:
                _append_math_piece(out, self.read_atom(depth + 1), kind == "cmd")
        return "".join(out)

    def read_atom(self, depth: int) -> str:
        """Read one argument: a `{group}`, a command with its arguments, or a char."""
        while (token := self.peek()) is not None and token[0] == "space":
            self.i += 1
        if token is None or token == ("char", "}"):
            return ""
        self.i += 1
        kind, value = token
        if depth > _MAX_MATH_DEPTH:
            return _flat_math_token(kind, value)
        if kind == "char" and value == "{":
            inner = self.read_sequence(depth + 1)
            self.i += self.peek() == ("char", "}")
            return inner
        if kind == "cmd":
            return self.read_command(value, depth + 1)
        return _flat_math_token(kind, value)

    def read_command(self, name: str, depth: int) -> str:
        if name in _MATH_DELIMITER_SIZES:
            self.i += self.peek() == ("char", ".")  # \left. is an invisible delimiter
            return ""
        if name in _MATH_SYMBOLS:
            return _MATH_SYMBOLS[name]
        if name in _MATH_FUNCTIONS:
            return name
        if name in _MATH_FRACTIONS:
            num, den = self.read_atom(depth), self.read_atom(depth)
            return f"{_parenthesize(num)}/{_parenthesize(den)}"
        if name in _MATH_BINOMIALS:
            return f"C({self.read_atom(depth).strip()}, {self.read_atom(depth).strip()})"
        if name == "sqrt":
            return self.read_root(depth)
        if name == "mathbb":
            return self.read_atom(depth).translate(_DOUBLE_STRUCK)
        if name in _MATH_WRAPPERS:
            return self.read_atom(depth)
        if name in _MATH_ACCENTS:
            return _add_accent(self.read_atom(depth), _MATH_ACCENTS[name])
        if name in _MATH_DROP_ARG:
            self.read_atom(depth)
            return ""
        if name in _MATH_SECOND_ARG:
            self.read_atom(depth)
            return self.read_atom(depth)
        return self.read_structural(name, depth)

    def read_structural(self, name: str, depth: int) -> str:
        if name in ("begin", "end"):
            self.read_atom(depth)  # the environment name
            return " "
        if name == "not":
            negated = self.read_atom(depth).strip()
            return f" {negated}\u0338 " if negated else ""  # NFC makes ∈ + U+0338 ∉
        if name == "pmod":
            return f"(mod {self.read_atom(depth)})"
        if name == "norm":
            return f"‖{self.read_atom(depth)}‖"
        if name == "abs":
            return f"|{self.read_atom(depth)}|"
        return name  # unknown: keep the name

    def read_root(self, depth: int) -> str:
        index = ""
        if self.peek() == ("char", "["):
            self.i += 1
            parts = []
            while (token := self.peek()) is not None and token != ("char", "]"):
                parts.append(self.read_atom(depth))
            self.i += token is not None
            index = "".join(parts).strip()
        root = {"": "√", "2": "√", "3": "∛", "4": "∜"}.get(index, index + "√")
        return root + _parenthesize(self.read_atom(depth))


def _classify_math_token(m: re.Match) -> tuple[str, str]:
    name, symbol, space, char = m.groups()
    if name is not None:
        return ("cmd", name)
    if symbol is not None:
        return ("sym", symbol)
    if space is not None:
        return ("space", " ")
    if char is not None:
        return ("char", char)
    return ("sym", "")  # a lone backslash at the very end


def _flat_math_token(kind: str, value: str) -> str:
    """A token on its own, reading no arguments."""
    if kind == "cmd":
        return _MATH_SYMBOLS.get(value, value)
    if kind == "sym":
        return _MATH_CONTROL_SYMBOLS.get(value, value)
    return _MATH_CHARS.get(value, value)


def _append_math_piece(out: list[str], piece: str, from_command: bool) -> None:
    # `k\log k` must read "k log k", not "klog k".
    if from_command and len(piece) > 1 and piece.isalpha() and out and out[-1][-1:].isalnum():
        out.append(" ")
    out.append(piece)


def _parenthesize(operand: str) -> str:
    operand = operand.strip()
    if not operand or _SIMPLE_OPERAND.fullmatch(operand):
        return operand
    return f"({operand})"


def _to_script(operand: str, marker: str) -> str:
    operand = " ".join(operand.split())
    table = _SUPERSCRIPTS if marker == "^" else _SUBSCRIPTS
    compact = operand.replace(" ", "")  # `i = 1` was spaced as a relation
    if compact and all(c in table for c in compact):
        return "".join(table[c] for c in compact)
    if not operand or (marker == "^" and operand in _NO_CARET):
        return operand
    return marker + (operand if _WORD.fullmatch(operand) else f"({operand})")


def _add_accent(base: str, mark: str) -> str:
    # A combining mark only makes sense on a single letter.
    return base + mark if len(base.strip()) == 1 else base


# ---------------------------------------------------------------- LaTeX text to Markdown

_EMPHASIS_MACROS = {"emph": "*", "textit": "*", "textsl": "*", "textbf": "**"}

_PLAIN_MACROS = frozenset(
    "underline textrm textsc mbox hbox textnormal textup textsf textmd text uline "
    "textsuperscript textsubscript fbox".split())

_CITE_MACROS = frozenset(
    "cite citep citet citealp citealt citeauthor citeyear parencite textcite "
    "autocite Cite".split())

_SWITCHES = {
    "em": "*", "it": "*", "itshape": "*", "sl": "*", "slshape": "*",
    "bf": "**", "bfseries": "**", "tt": "`", "ttfamily": "`",
    **dict.fromkeys(
        "rm rmfamily sc scshape sf sffamily normalfont upshape mdseries tiny "
        "scriptsize footnotesize small normalsize large Large LARGE huge Huge".split(), ""),
}  # declarations that style the rest of their group; "" means no Markdown style

_TEXT_SYMBOLS = {
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

_TEXT_ESCAPES = {"%": "%", "&": "&", "#": "\\#", "_": "\\_", "$": "\\$", "{": "\\{", "}": "\\}"}

_TEXT_CONTROL_SPACES = {" ": " ", "\n": " ", "\t": " ", ",": " ", ";": " ", ":": " ",
                        ">": " ", "\\": " ", "-": "", "/": "", "@": ""}

_ACCENTS = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303",
    "=": "\u0304", ".": "\u0307", "c": "\u0327", "v": "\u030c", "u": "\u0306",
    "H": "\u030b", "k": "\u0328", "r": "\u030a", "d": "\u0323", "b": "\u0331",
}
_SPACING_ACCENTS = {"~": "~", "^": "^"}  # `\~{}` is a plain tilde

_COMMAND_HANDLERS = {
    "texttt": "parse_texttt", "url": "parse_url", "href": "parse_href",
    "footnote": "parse_footnote", "begin": "parse_begin", "end": "parse_end",
    "item": "parse_item", "nocite": "parse_nocite",
}

_LIST_MARKERS = {"itemize": "- ", "enumerate": "1. ", "description": "- "}

_CONTROL_SEQUENCE = re.compile(r"\\([A-Za-z]+|[\s\S]?)")
_TEXT_SPECIAL = re.compile(r"[\\{}$]")
_BRACE_TOKEN = re.compile(r"\\[\s\S]|[{}]")
_MAX_GROUP_DEPTH = 64  # deeper groups are copied as text instead of recursed into

_TEXT, _RAW = False, True  # raw pieces (math, code, URLs, citations) skip typography
_Piece = tuple[bool, str]


def latex_to_markdown(text: str) -> tuple[str, list[str]]:
    """Convert LaTeX text markup outside math to Markdown; return it with warnings.

    Warnings say what could not be converted faithfully (unknown macros, math
    macros outside math, unbalanced braces); each distinct one is listed once.
    """
    converter = _TextConverter(text)
    pieces = converter.convert()
    return _typeset(pieces), list(converter.warnings)


class _TextConverter:
    """Walks the text once; math spans are opaque, braces pre-matched."""

    def __init__(self, text: str):
        self.text = text
        self.math = {start: end for start, end in find_math_spans(text)}
        self.math_starts = sorted(self.math)
        self.closing, self.stray_braces = _match_braces(text, self.math)
        self.warnings: dict[str, None] = {}
        self.plain = False  # inside code: escapes give the bare char, no emphasis
        self.lists: list[str] = []

    def convert(self) -> list[_Piece]:
        if self.stray_braces:
            self.warn("unbalanced brace in LaTeX text; kept it as is")
        return self.parse(0, len(self.text), 0)

    def warn(self, message: str) -> None:
        self.warnings[message] = None

    def parse(self, start: int, end: int, depth: int) -> list[_Piece]:
        out: list[_Piece] = []
        pos = start
        while pos < end:
            m = _TEXT_SPECIAL.search(self.text, pos, end)
            if m is None:
                out.append((_TEXT, self.text[pos:end]))
                break
            if m.start() > pos:
                out.append((_TEXT, self.text[pos:m.start()]))
            pos = self.parse_special(m.start(), end, depth, out)
        return out

    def parse_special(self, pos: int, end: int, depth: int, out: list[_Piece]) -> int:
        """Convert what starts at `pos`; return the position after it."""
        if pos in self.math:
            span_end = self.math[pos]
            out.append((_RAW, _math_to_markdown(self.text[pos:span_end])))
            return span_end
        char = self.text[pos]
        if char == "$":
            out.append((_TEXT, "$" if self.plain else "\\$"))  # not math: a literal dollar
            return pos + 1
        if char == "{":
            return self.parse_group(pos, end, depth, out)
        if char == "}":
            out.append((_TEXT, "}"))  # unmatched, already warned about
            return pos + 1
        return self.parse_command(pos, end, depth, out)

    def parse_group(self, pos: int, end: int, depth: int, out: list[_Piece]) -> int:
        close = self.closing.get(pos)
        if close is None or close >= end:
            out.append((_TEXT, "{"))
            return pos + 1
        if depth >= _MAX_GROUP_DEPTH:
            inner = [(_TEXT, self.text[pos + 1:close])]
        else:
            inner = self.parse(pos + 1 + self.skip_declaration(pos + 1, close), close, depth + 1)
        if pos and self.text[pos - 1] in "^_" and len(_join(inner)) > 1:
            inner = [(_TEXT, "("), *inner, (_TEXT, ")")]  # math without dollars: e^{-t} -> e^(-t)
        out.extend(inner)
        return close + 1

    def skip_declaration(self, pos: int, close: int) -> int:
        """Length of an unknown `\\name ` opening a group, like `{\\rc text}`."""
        m = _CONTROL_SEQUENCE.match(self.text, pos, close)
        if m is None or not m.group(1).isalpha() or m.end() >= close:
            return 0
        name = m.group(1)
        if not self.text[m.end()].isspace() or _is_known_text_macro(name):
            return 0
        self.warn(f"unknown LaTeX declaration \\{name} outside math; dropped it")
        return _skip_blanks(self.text, m.end(), close) - pos

    def parse_command(self, pos: int, end: int, depth: int, out: list[_Piece]) -> int:
        m = _CONTROL_SEQUENCE.match(self.text, pos, end)
        name, after = m.group(1), m.end()
        if not name:
            out.append((_TEXT, "\\"))  # a lone backslash at the end
            return after
        if not name.isalpha():
            return self.parse_control_symbol(name, after, end, depth, out)
        if name in _SWITCHES:
            return self.parse_switch(name, after, end, depth, out)
        handler = self.handler_for(name)
        if handler is not None:
            return handler(name, after, end, depth, out)
        if name in _TEXT_SYMBOLS:
            out.append((_TEXT, _TEXT_SYMBOLS[name]))
            return after
        if name in _ACCENTS:
            return self.parse_accent(name, after, end, depth, out)
        if _math_arity(name) is not None:
            return self.parse_math_macro(name, pos, after, end, out)
        return self.parse_unknown(name, after, end, depth, out)

    def handler_for(self, name: str):
        if name in _EMPHASIS_MACROS:
            return self.parse_emphasis
        if name in _PLAIN_MACROS:
            return self.parse_plain_macro
        if name in _CITE_MACROS:
            return self.parse_cite
        method = _COMMAND_HANDLERS.get(name)
        return getattr(self, method) if method else None

    # -- argument reading

    def read_arg(self, pos: int, end: int, allow_math: bool = True) -> tuple[int, int, int] | None:
        """(content start, content end, position after) of the argument at `pos`.

        TeX-like: spaces (and one newline) are skipped; the argument is a
        `{group}`, a math span, a control sequence or a single character.
        """
        q = _skip_blanks(self.text, pos, end)
        if q >= end or self.text[q] == "}":
            return None
        if q in self.math:
            return (q, self.math[q], self.math[q]) if allow_math else None
        if self.text[q] == "{":
            close = self.closing.get(q)
            return (q + 1, close, close + 1) if close is not None and close < end else None
        if self.text[q] == "\\":
            m = _CONTROL_SEQUENCE.match(self.text, q, end)
            return q, m.end(), m.end()
        return q, q + 1, q + 1

    def read_group(self, pos: int, end: int) -> tuple[int, int, int] | None:
        """Like read_arg, but only a `{group}` right at `pos`."""
        close = self.closing.get(pos)
        if pos < end and close is not None and close < end:
            return pos + 1, close, close + 1
        return None

    def read_optional(self, pos: int, end: int) -> tuple[int, int, int] | None:
        """Like read_arg, for an optional `[...]` argument right at `pos`."""
        if pos >= end or self.text[pos] != "[":
            return None
        close = self.text.find("]", pos, end)
        if close < 0 or self.crosses_math(pos, close):
            return None
        return pos + 1, close, close + 1

    def crosses_math(self, start: int, stop: int) -> bool:
        """Whether a math span begins in [start, stop) and ends after `stop`."""
        i = bisect.bisect_left(self.math_starts, start)
        while i < len(self.math_starts) and self.math_starts[i] < stop:
            if self.math[self.math_starts[i]] > stop:
                return True
            i += 1
        return False

    def has_math(self, start: int, stop: int) -> bool:
        """Whether a math span begins in [start, stop)."""
        i = bisect.bisect_left(self.math_starts, start)
        return i < len(self.math_starts) and self.math_starts[i] < stop

    def parse_arg(self, arg: tuple[int, int, int], depth: int) -> list[_Piece]:
        return self.parse(arg[0], arg[1], depth + 1)

    # -- handlers: each returns the position after what it consumed

    def parse_emphasis(self, name, after, end, depth, out):
        arg = self.read_arg(after, end)
        if arg is None:
            return after
        out.extend(self.wrap(self.parse_arg(arg, depth), _EMPHASIS_MACROS[name]))
        return arg[2]

    def parse_plain_macro(self, name, after, end, depth, out):
        arg = self.read_arg(after, end)
        if arg is None:
            return after
        out.extend(self.parse_arg(arg, depth))
        return arg[2]

    def parse_texttt(self, name, after, end, depth, out):
        arg = self.read_arg(after, end)
        if arg is None:
            return after
        self.emit_code(arg[0], arg[1], depth + 1, out)
        return arg[2]

    def parse_switch(self, name, after, end, depth, out):
        if depth == 0:
            self.warn(f"LaTeX \\{name} outside a group; ignored it")
            return after
        start = _skip_blanks(self.text, after, end)
        marker = _SWITCHES[name]
        if marker == "`":
            self.emit_code(start, end, depth, out)
        else:
            out.extend(self.wrap(self.parse(start, end, depth), marker))
        return end

    def parse_cite(self, name, after, end, depth, out):
        notes = []
        pos = after
        while len(notes) < 2 and (note := self.read_optional(pos, end)) is not None:
            notes.append(" ".join(_typeset(self.parse_arg(note, depth)).split()))
            pos = note[2]
        arg = self.read_group(pos, end)
        if arg is None:
            return after
        raw_keys = self.text[arg[0]:arg[1]]
        if "$" in raw_keys or self.has_math(arg[0], arg[1]):  # not keys: keep the math
            out.extend(self.parse_arg(arg, depth))
            return arg[2]
        keys = ["".join(k.split()) for k in raw_keys.split(",")]
        citation = _format_citation([k for k in keys if k], notes)
        if citation and not self.plain:
            _replace_trailing_space(out)
            out.append((_RAW, citation))
        return arg[2]

    def parse_nocite(self, name, after, end, depth, out):
        arg = self.read_group(after, end)
        return arg[2] if arg else after

    def parse_url(self, name, after, end, depth, out):
        arg = self.read_group(_skip_blanks(self.text, after, end), end)
        if arg is None:
            return after
        self.emit_url(arg, depth, out)
        return arg[2]

    def parse_href(self, name, after, end, depth, out):
        target = self.read_group(_skip_blanks(self.text, after, end), end)
        if target is None:
            return after
        label = self.read_group(_skip_blanks(self.text, target[2], end), end)
        link_text = self.parse_arg(label, depth) if label else []
        if not _join(link_text).strip() or self.plain:
            self.emit_url(target, depth, out)
        elif "$" in self.text[target[0]:target[1]] or self.has_math(target[0], target[1]):
            out.extend(link_text)  # math in a URL is broken input: keep the words
        else:
            url = _clean_url(self.text[target[0]:target[1]])
            url = url.replace("(", "%28").replace(")", "%29")
            out.extend([(_TEXT, "["), *link_text, (_TEXT, "]("), (_RAW, url), (_TEXT, ")")])
        return label[2] if label else target[2]

    def emit_url(self, arg: tuple[int, int, int], depth: int, out: list[_Piece]) -> None:
        raw = self.text[arg[0]:arg[1]]
        if "$" in raw or self.has_math(arg[0], arg[1]):  # a bare `$` would pair as math
            out.extend(self.parse_arg(arg, depth))
        else:
            out.append((_RAW, _clean_url(raw)))

    def emit_code(self, start: int, end: int, depth: int, out: list[_Piece]) -> None:
        code = _join(self.parse_plain(start, end, depth))
        if "$" in code:  # a code span cannot escape `$`; better plain text than bad math
            out.extend(self.parse(start, end, depth))
        else:
            out.append((_RAW, _code_span(code)))

    def parse_footnote(self, name, after, end, depth, out):
        arg = self.read_arg(after, end)
        if arg is None:
            return after
        inner = _strip_pieces(self.parse_arg(arg, depth))
        if inner:
            _replace_trailing_space(out, always=True)
            out.extend([(_TEXT, "("), *inner, (_TEXT, ")")])
        return arg[2]

    def parse_begin(self, name, after, end, depth, out):
        arg = self.read_group(after, end)
        if arg is None:
            return after
        env = self.text[arg[0]:arg[1]].strip()
        if env in _LIST_MARKERS:
            self.lists.append(env)
            _end_paragraph(out)
        else:
            self.warn(f"unknown LaTeX environment {env}; dropped \\begin and \\end")
        return _skip_blanks(self.text, arg[2], end)

    def parse_end(self, name, after, end, depth, out):
        arg = self.read_group(after, end)
        if arg is None:
            return after
        env = self.text[arg[0]:arg[1]].strip()
        if env in _LIST_MARKERS:
            if self.lists:
                self.lists.pop()
            _end_paragraph(out)
            return _skip_blanks(self.text, arg[2], end)
        return arg[2]

    def parse_item(self, name, after, end, depth, out):
        marker = _LIST_MARKERS[self.lists[-1]] if self.lists else "- "
        _trim_trailing_space(out)
        if not _join(out[-1:]).endswith("\n"):  # a list needs a blank line before it
            marker = ("\n" if self.lists else "\n\n") + marker
        out.append((_TEXT, marker))
        label = self.read_optional(_skip_blanks(self.text, after, end), end)
        if label is not None:
            out.extend(self.wrap(self.parse_arg(label, depth), "**"))
            out.append((_TEXT, " "))
            after = label[2]
        return _skip_blanks(self.text, after, end)

    def parse_accent(self, name, after, end, depth, out):
        if name.isalpha():
            arg = self.read_arg(after, end, allow_math=False)
        else:
            arg = self.read_accent_base(after, end)
        if arg is None:
            out.append((_TEXT, _SPACING_ACCENTS.get(name, "")))
            return after
        base = self.parse_arg(arg, depth)
        if any(is_raw for is_raw, _ in base):
            out.extend(base)  # never put an accent on math
        else:
            out.append((_TEXT, _accent_text(_join(base), _ACCENTS[name], _SPACING_ACCENTS.get(name, ""))))
        return arg[2]

    def read_accent_base(self, pos: int, end: int) -> tuple[int, int, int] | None:
        # `\"o` takes the very next character; `\"{o}` a group.
        if pos < end and self.text[pos] == "{":
            return self.read_group(pos, end)
        if pos < end and self.text[pos] not in "}\\ \n\t$":
            return pos, pos + 1, pos + 1
        return None

    def parse_control_symbol(self, char, after, end, depth, out):
        if char in _TEXT_ESCAPES:
            out.append((_TEXT, char if self.plain else _TEXT_ESCAPES[char]))
            return after
        if char in _ACCENTS:
            return self.parse_accent(char, after, end, depth, out)
        if char in _TEXT_CONTROL_SPACES:
            out.append((_TEXT, _TEXT_CONTROL_SPACES[char]))
            return after
        out.append((_TEXT, "\\" + char))  # `\*`, `\[`, ...: already a Markdown escape
        return after

    def parse_math_macro(self, name, pos, after, end, out):
        stop = after
        for _ in range(_math_arity(name)):
            arg = self.read_arg(stop, end, allow_math=False)
            if arg is None:
                break
            stop = arg[2]
        if self.has_math(after, stop):
            stop = after  # `\sqrt{$x$}`: flatten the macro only, keep the math
        text = math_to_text(self.text[pos:stop]).replace("$", "\\$")  # `\bar\$` -> `$̄`
        if len(text) > 1 and text.isalpha() and _join(out[-1:])[-1:].isalnum():
            text = " " + text  # d\log n -> d log n
        out.append((_TEXT, text))
        self.warn(f"LaTeX math macro \\{name} outside math; wrote it as plain text")
        return stop

    def parse_unknown(self, name, after, end, depth, out):
        args = []
        pos = after
        while (group := self.read_group(pos, end)) is not None:
            args.append(self.parse_arg(group, depth))
            pos = group[2]
        if any(_join(arg).strip() for arg in args):
            for i, arg in enumerate(args):
                out.extend([(_TEXT, " ")] * (i > 0) + arg)
            self.warn(f"unknown LaTeX macro \\{name} outside math; kept its text")
        else:
            out.append((_TEXT, name))  # `\xgboost{}` names a thing: keep the name
            self.warn(f"unknown LaTeX macro \\{name} outside math; kept its name")
        return pos

    # -- building blocks

    def wrap(self, inner: list[_Piece], marker: str) -> list[_Piece]:
        """`marker` around `inner`, with its edge whitespace moved outside."""
        if self.plain or not marker:
            return inner
        lead, core, trail = _split_edge_space(inner)
        if not core:
            return [(_TEXT, lead + trail)] if lead + trail else []
        return [(_TEXT, lead + marker), *core, (_TEXT, marker + trail)]

    def parse_plain(self, start: int, end: int, depth: int) -> list[_Piece]:
        """Parse for a code span: escapes give the bare char, no emphasis markers."""
        saved, self.plain = self.plain, True
        try:
            return self.parse(start, end, depth)
        finally:
            self.plain = saved


def _is_known_text_macro(name: str) -> bool:
    return (name in _SWITCHES or name in _EMPHASIS_MACROS or name in _PLAIN_MACROS
            or name in _CITE_MACROS or name in _COMMAND_HANDLERS or name in _TEXT_SYMBOLS
            or name in _ACCENTS or _math_arity(name) is not None)


def _math_arity(name: str) -> int | None:
    """How many arguments a math macro takes, or None if `name` is not one."""
    if name in _MATH_SYMBOLS or name in _MATH_FUNCTIONS:
        return 1 if name in _MATH_DELIMITER_SIZES else 0
    if name in _MATH_FRACTIONS or name in _MATH_BINOMIALS or name in _MATH_SECOND_ARG:
        return 2
    if name in ("sqrt", "mathbb", "not") or name in _MATH_ACCENTS:
        return 1
    if name in _MATH_WRAPPERS:
        return 1
    return None


def _match_braces(text: str, math: dict[int, int]) -> tuple[dict[int, int], bool]:
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


def _skip_blanks(text: str, pos: int, end: int) -> int:
    """Skip spaces and at most one newline, as TeX does before an argument."""
    while pos < end and text[pos] in " \t":
        pos += 1
    if pos < end and text[pos] == "\n":
        pos += 1
        while pos < end and text[pos] in " \t":
            pos += 1
    return pos


def _join(pieces: list[_Piece]) -> str:
    return "".join(s for _, s in pieces)


def _split_edge_space(pieces: list[_Piece]) -> tuple[str, list[_Piece], str]:
    """(leading whitespace, the rest without edge whitespace, trailing whitespace)."""
    core = [p for p in pieces if p[1]]
    lead = trail = ""
    while core and core[0][0] is _TEXT and not core[0][1].strip():
        lead += core.pop(0)[1]
    while core and core[-1][0] is _TEXT and not core[-1][1].strip():
        trail = core.pop()[1] + trail
    if core and core[0][0] is _TEXT:
        text = core[0][1]
        stripped = text.lstrip()
        lead += text[:len(text) - len(stripped)]
        core[0] = (_TEXT, stripped)
    if core and core[-1][0] is _TEXT:
        text = core[-1][1]
        stripped = text.rstrip()
        trail = text[len(stripped):] + trail
        core[-1] = (_TEXT, stripped)
    return lead, core, trail


def _strip_pieces(pieces: list[_Piece]) -> list[_Piece]:
    return _split_edge_space(pieces)[1]


def _trim_trailing_space(out: list[_Piece], chars: str = " \t\n") -> bool:
    """Drop trailing `chars` from the end of `out`; say whether any were dropped.

    A paragraph break is kept: removing it could let math pair across it.
    """
    dropped = ""
    while out and out[-1][0] is _TEXT:
        text = out[-1][1]
        kept = text.rstrip(chars)
        dropped = text[len(kept):] + dropped
        if kept:
            out[-1] = (_TEXT, kept)
            break
        out.pop()
    if _PARAGRAPH_BREAK.search(dropped):
        out.append((_TEXT, "\n\n"))
    return bool(dropped)


def _end_paragraph(out: list[_Piece]) -> None:
    _trim_trailing_space(out)
    if out and not _join(out[-1:]).endswith("\n"):
        out.append((_TEXT, "\n\n"))


def _replace_trailing_space(out: list[_Piece], always: bool = False) -> None:
    """Replace a run of spaces or `~` before a citation/footnote by one space.

    With `always`, add the space even if there was none. A citation that starts
    the text or a line stays at the start.
    """
    trimmed = _trim_trailing_space(out, " \t~")
    if (trimmed or always) and out and not _join(out[-1:]).endswith("\n"):
        out.append((_TEXT, " "))


def _format_citation(keys: list[str], notes: list[str]) -> str:
    """Pandoc citation: `[@a; @b]`, with natbib's [prenote][postnote] if given."""
    if not keys:
        return ""
    prenote, postnote = (notes + ["", ""])[:2] if len(notes) == 2 else ("", (notes or [""])[0])
    body = "; ".join("@" + k for k in keys)
    if prenote:
        body = f"{prenote} {body}"
    if postnote:
        body = f"{body}, {postnote}"
    return f"[{body}]"


_URL_ESCAPE = re.compile(r"\\([%_#&~])")


def _clean_url(raw: str) -> str:
    # Whitespace inside \url{} is line wrapping in the source, never part of the URL.
    return _URL_ESCAPE.sub(r"\1", "".join(raw.split()))


def _accent_text(base: str, mark: str, spacing: str) -> str:
    if not base:
        return spacing
    first = "i" if base[0] == "ı" else base[0]  # \"{\i} is ï
    return unicodedata.normalize("NFC", first + mark) + base[1:]


def _code_span(code: str) -> str:
    code = " ".join(code.split("\n"))
    if not code.strip():
        return code
    fence = "`" * (max(map(len, re.findall("`+", code)), default=0) + 1)
    pad = " " if code.startswith("`") or code.endswith("`") else ""
    return f"{fence}{pad}{code}{pad}{fence}"


# ---------------------------------------------------------------- typography

_QUOTE_DOUBLE_PAIR = re.compile(r"``([^`\"\n]*)\"")  # ``text" closes with a straight quote
_QUOTE_SINGLE_PAIR = re.compile(r"(?<![`\w])`(?!`)((?:[^`'\n]|'(?=\w))+?)''?(?![\w'])")
_QUOTE_CLOSING = re.compile(r"''")
_DASH = re.compile(r"(?<![-<!|:])(---|--)(?![->|:])")  # not <!--, -->, ---- or |---|
_TIE = re.compile(r"(?<=\S)~")
_PROTECTED = re.compile(
    r"(`+)[^`]*?\1"                                  # Markdown code span
    r"|(?:https?://|ftp://|www\.)\S+"                # bare URL
    r"|<[A-Za-z][A-Za-z0-9+.-]*:[^<>\s]*>"           # autolink
    r"|^[ \t]*-{3,}[ \t]*$",                         # a Markdown rule line
    re.MULTILINE)


def _typeset(pieces: list[_Piece]) -> str:
    """Join pieces, applying quotes, dashes and ties to the runs of text pieces."""
    out: list[str] = []
    run: list[str] = []
    after_raw = False
    for is_raw, text in pieces:
        if is_raw:
            _append_keeping_math(out, _typeset_run("".join(run), after_raw))
            _append_keeping_math(out, text)
            run = []
            after_raw = True
        else:
            run.append(text)
    _append_keeping_math(out, _typeset_run("".join(run), after_raw))
    return "".join(out)


_SPACED_CLOSER = re.compile(r"\s\$\Z")
_OPENER_LIKE_START = re.compile(r"[\w\\{]")


def _append_keeping_math(out: list[str], text: str) -> None:
    # `$a $` closed only because no word followed it; if conversion put one
    # right after it (`{$a $}b` -> `$a $b`), keep them apart or pairing changes.
    if text and out and _OPENER_LIKE_START.match(text) and _SPACED_CLOSER.search(out[-1]):
        out.append(" ")
    out.append(text)


def _typeset_run(text: str, after_raw: bool) -> str:
    if not text:
        return text
    if after_raw and text.startswith("~"):
        text = " " + text[1:]  # `$x$~is`: a tie after math
    if "`" in text or "'" in text:
        text = _convert_quotes(text)
    if "-" not in text and "~" not in text:
        return text
    out: list[str] = []
    pos = 0
    for m in _PROTECTED.finditer(text):
        out.append(_convert_dashes_and_ties(text[pos:m.start()]))
        out.append(m.group())
        pos = m.end()
    out.append(_convert_dashes_and_ties(text[pos:]))
    return "".join(out)


def _convert_quotes(text: str) -> str:
    text = _QUOTE_DOUBLE_PAIR.sub(r"“\1”", text).replace("``", "“")
    text = _QUOTE_SINGLE_PAIR.sub(r"‘\1’", text)
    return _QUOTE_CLOSING.sub(_choose_double_quote, text)


def _choose_double_quote(m: re.Match) -> str:
    # '' usually closes ``...''; after a space and before a word it opens ''word''.
    text, at = m.string, m.start()
    before = text[at - 1] if at else " "
    after = text[m.end()] if m.end() < len(text) else " "
    return "“" if (before.isspace() or before in "([") and not after.isspace() else "”"


def _convert_dashes_and_ties(text: str) -> str:
    text = _DASH.sub(lambda m: "—" if len(m.group()) == 3 else "–", text)
    return _TIE.sub(" ", text)


# ---------------------------------------------------------------- Markdown to plain text

_BLOCK_MARKUP = re.compile(
    r"^[ \t]*(?:(?:[-*_][ \t]*){3,}$|#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+)", re.MULTILINE)
_INLINE_TRIGGER = re.compile(r"[\\`!\[<*_]")  # a lone charset: re scans for it fast
_INLINE_MARKUP = re.compile(
    r"""\\(?P<escaped>[!-/:-@\[-`{-~])
      | (?P<fence>`+)(?P<code>.+?)(?P=fence)
      | !?\[(?P<label>(?:\\.|[^\\\]])*)\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"]*")?\)
      | (?P<citation>\[(?:[^\[\]]*?[\s;])?-?@[^\s\[\];,]+[^\[\]]*\])
      | <(?P<autolink>[A-Za-z][A-Za-z0-9+.-]*:[^<>\s]+)>
      | (?P<stars>\*{1,3})(?=\S)(?P<starred>(?:\\.|[^\\\n]|\n(?![ \t]*\n))+?)(?<=\S)(?P=stars)
      | (?<!\w)(?P<unders>_{1,3})(?=\S)(?P<underscored>(?:\\.|[^\\\n]|\n(?![ \t]*\n))+?)(?<=\S)(?P=unders)(?!\w)
    """,
    re.VERBOSE | re.DOTALL)  # tried only where _INLINE_TRIGGER found a candidate
_MATH_PLACEHOLDER = re.compile("\ue000(\\d+)\ue001")  # private-use marks, stripped from input
_MAX_INLINE_DEPTH = 16


def flatten_markdown(markdown: str) -> str:
    """Markdown as one line of plain text, for summaries and the search index.

    Markup goes, links keep their text, citations are dropped, math becomes
    math_to_text, escapes lose their backslash, whitespace is collapsed.
    """
    text = markdown
    if "\n" in text or text[:1] in "#>-*+_":
        text = _BLOCK_MARKUP.sub("", text)
    maths: list[str] = []
    if "$" in text or "\\" in text:
        text, maths = _hide_math(text.replace("\ue000", "").replace("\ue001", ""))
    text = _flatten_inline(text, 0)
    if maths:
        text = _MATH_PLACEHOLDER.sub(lambda m: maths[int(m.group(1))], text)
    return " ".join(text.split())


def hide_math_spans(text: str, opener: str, closer: str) -> tuple[str, list[str]]:
    """Swap each math span for `opener + index + closer`; return the text and the spans, in order."""
    out: list[str] = []
    spans: list[str] = []
    pos = 0
    for start, end in find_math_spans(text):
        out.append(text[pos:start])
        out.append(f"{opener}{len(spans)}{closer}")
        spans.append(text[start:end])
        pos = end
    out.append(text[pos:])
    return "".join(out), spans


def _hide_math(text: str) -> tuple[str, list[str]]:
    """Swap math spans for placeholders so emphasis can span them: `*the $x$ norm*`."""
    hidden, spans = hide_math_spans(text, "\ue000", "\ue001")
    return hidden, [math_to_text(_math_body(span)) for span in spans]


def _flatten_inline(text: str, depth: int) -> str:
    # A hand-rolled re.sub: an alternation tried at every position costs ~60 µs
    # per abstract, while searching for the trigger characters first costs ~5.
    if depth > _MAX_INLINE_DEPTH:
        return text
    out: list[str] = []
    pos = 0
    while (trigger := _INLINE_TRIGGER.search(text, pos)) is not None:
        at = trigger.start()
        m = _INLINE_MARKUP.match(text, at)
        if m is None:
            out.append(text[pos:at + 1])
            pos = _skip_run(text, at)
            out.append(text[at + 1:pos])
            continue
        out.append(text[pos:at])
        if m.group("citation") is not None:
            out.append(out.pop().rstrip(" \t"))  # with the space before it
        else:
            out.append(_flatten_inline_match(m, depth))
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def _skip_run(text: str, at: int) -> int:
    """Position after the run of `text[at]` if it is a backtick, star or underscore."""
    char = text[at]
    end = at + 1
    if char in "`*_":
        while end < len(text) and text[end] == char:
            end += 1
    return end


def _flatten_inline_match(m: re.Match, depth: int) -> str:
    if m.group("escaped") is not None:
        return m.group("escaped")
    if m.group("code") is not None:
        return m.group("code").strip()
    if m.group("autolink") is not None:
        return m.group("autolink")
    for group in ("label", "starred", "underscored"):
        if m.group(group) is not None:
            return _flatten_inline(m.group(group), depth + 1)
    return ""
