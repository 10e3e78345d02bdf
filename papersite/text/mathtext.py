"""LaTeX math as readable Unicode text: `O(\\sqrt{K})` -> `O(√K)`, for summaries, search and plain titles."""

from __future__ import annotations

import functools
import re
import unicodedata

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



def math_arity(name: str) -> int | None:
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

