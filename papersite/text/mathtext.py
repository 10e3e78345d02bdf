"""LaTeX math as the Unicode text a reader would type: `\\mathcal{O}(\\sqrt{T})` -> `𝒪(√T)`, `\\ell_\\infty` -> `ℓ∞`.

For everything that shows a title or an abstract as plain text: <title>, the link-preview and
Scholar tags, JSON-LD, the feed, summaries and search. pylatexenc's latex2text does the
conversion (its symbol tables, accents, font alphabets: `\\mathcal{O}` is `𝒪`, `\\mathbb{R}` is
`ℝ`). What is configured here is only where a reader types something other than its defaults:

- scripts: `x^2` is `x²` and `x_i` is `xᵢ` when every character has a Unicode script form; else a
  subscript is written on the line (`\\ell_\\infty` is `ℓ∞`, `\\Phi_\\text{Flow}` is `ΦFlow`) and a
  superscript after a caret (`n^{1/2}` is `n^(1/2)`);
- bold, typewriter, sans-serif and roman letters are plain letters (`\\mathbf{x}` is `x`, not `𝐱`),
  as are `\\text{...}` and `\\operatorname{...}`; `\\epsilon`, `\\phi` and `\\sum` are the everyday `ε`, `φ`
  and `Σ`;
- `\\frac{a+b}{2}` is `(a+b)/2`, `\\sqrt{n+1}` is `√(n+1)`, `\\binom{n}{k}` is `C(n, k)`;
- a macro that gives a word is a word (`k\\log k` is `k log k`), relations are spaced (`p ≫ n`);
- an unknown macro keeps its name (`\\R` is `R`), spacing and sizing macros give nothing.
"""

from __future__ import annotations

import functools
import logging
import re
import unicodedata

from pylatexenc import latex2text, latexwalker, macrospec

from .macros import CONTROL_WORD_RE

_SUPERSCRIPTS = dict(zip(
    "0123456789+-−=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWαβγδεθιφχ⊤∘",
    "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵅᵝᵞᵟᵋᶿᶥᵠᵡᵀ°"))
_SUBSCRIPTS = dict(zip(
    "0123456789+-−=()aehijklmnoprstuvxβγρφχ",
    "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ"))
_MARKS = frozenset("*∗′'†‡°⋆")  # `C^*` and `f^\prime` read C* and f′, with no caret

# Macros whose argument is read as it is written: a reader types `x`, not `𝐱`, for \\mathbf{x}.
_PLAIN = """mathbf mathit mathsf mathtt mathrm mathnormal boldsymbol bm pmb text textrm textbf textit textsf texttt
    textnormal textup textmd textsl textsc emph mbox hbox operatorname mathop mathrel mathbin boxed""".split()
# \\left( and \\bigl[ give their delimiter; `.` is none.
_DELIMITER_SIZES = "left right middle big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr".split()
# Font switches, spacing, sizing and numbering: nothing a reader types.
_SILENT = """bf rm it sf tt cal sc em sl up md normalfont bfseries mdseries itshape upshape slshape scshape rmfamily
    sffamily ttfamily boldmath unboldmath displaystyle textstyle scriptstyle scriptscriptstyle limits nolimits
    nonumber notag phantom hphantom vphantom hspace vspace tag negthinspace negmedspace negthickspace enspace
    thinspace medspace thickspace tiny scriptsize footnotesize small normalsize large Large""".split()
# Text-mode letters (\\O is Ø, \\AA is Å in a sentence): in a formula they are the author's own macros,
# \\O a big O more often than not, so they keep their names as unknown macros do.
_OWN = "o O aa AA ae AE oe OE ss l L i j".split()
_SYMBOLS = {
    "epsilon": "ε", "phi": "φ", "sum": "Σ", "lbrace": "{", "rbrace": "}", "backslash": "∖", "textbackslash": "∖",
    "vert": "|", "lvert": "|", "rvert": "|", "Vert": "‖", "lVert": "‖", "rVert": "‖", "|": "‖", "over": "/",
    "triangleq": "≜", "coloneqq": "≔", "models": "⊨", "vdash": "⊢", "top": "⊤", "bot": "⊥", "perp": "⊥",
    "checkmark": "✓", "degree": "°", "land": "∧", "lor": "∨", "lnot": "¬", "neg": "¬", "implies": "⇒",
    "iff": "⇔", "gets": "←",
    **{name: name for name in "mod bmod argmax argmin Pr det dim ker deg gcd hom arg lg coth sec csc cot".split()},
    **{name: name for name in _OWN},
}
# Accents: a combining mark on a single letter (\\widetilde{O} is Õ), none on more (\\hat{AB} is AB).
_ACCENTS = {"hat": "\u0302", "widehat": "\u0302", "tilde": "\u0303", "widetilde": "\u0303", "bar": "\u0304",
            "overline": "\u0304", "vec": "\u20d7", "dot": "\u0307", "ddot": "\u0308", "check": "\u030c",
            "breve": "\u0306", "acute": "\u0301", "grave": "\u0300", "mathring": "\u030a"}
# Macros of one argument that an author may run into a letter: `\\sqrtT`, `\\mathbbR`.
_ONE_ARGUMENT = frozenset(["sqrt", "mathbb", "mathcal", "mathfrak", "mathscr", "mathbf", "mathrm", "boldsymbol", "bm",
                           *_ACCENTS])
# The arguments of macros pylatexenc's parser does not know, in its notation: `*` an optional star, `{` an argument.
_ARGUMENTS = {
    **dict.fromkeys("mathop mathrel mathbin mathnormal boldsymbol bm pmb textnormal mbox hbox boxed color pmod "
                    "norm abs phantom".split(), "{"),
    **dict.fromkeys("binom dbinom tbinom dfrac tfrac cfrac overset underset stackrel textcolor".split(), "{{"),
    **dict.fromkeys("operatorname hspace vspace tag".split(), "*{"),
    **dict.fromkeys(_DELIMITER_SIZES, "{"),
}
_RELATION = re.compile("[=<>≤≥≦≧⩽⩾≠≈∼≃≅≡∝≪≫≲≳≺≻⪯⪰⊂⊆⊃⊇⊊⊋∈∉∋→←↔⇒⇐⇔⟶⟵⟹⟸⟺↦⊨⊢≜≔]")
_MAX_LENGTH = 4000  # a longer formula is flattened, not parsed (pylatexenc recurses per level)


@functools.lru_cache(maxsize=8192)
def math_to_text(latex: str) -> str:
    """A LaTeX math expression (no dollars) as one line of readable Unicode text.

    `O(\\sqrt{K})` -> `O(√K)`, `\\ell_p` -> `ℓₚ`, `\\mathbb{R}^d` -> `ℝᵈ`, `\\frac{a+b}{2}` -> `(a+b)/2`.
    Never raises; the result has no backslash, and a brace only where the formula has `\\{` or `\\}`.
    """
    if not latex.strip():
        return ""
    # `$99.9%$` means per cent, never a comment to the end of the line.
    latex = re.sub(r"(?<!\\)((?:\\\\)*)%", r"\1\\%", latex)
    text = _convert(latex) if len(latex) <= _MAX_LENGTH else None
    if text is None:  # too long, or too deeply nested for the parser: the formula's own characters
        text = CONTROL_WORD_RE.sub(lambda m: f" {m.group()[1:]} ", latex).replace("{", "").replace("}", "")
    text = _RELATION.sub(lambda m: f" {m.group()} ", text.replace("\\", ""))
    return " ".join(unicodedata.normalize("NFC", text).split())


def _convert(latex: str) -> str | None:
    walker_context, reader = _tools()
    try:
        walker = latexwalker.LatexWalker(latex, latex_context=walker_context, tolerant_parsing=True)
        nodes, _, _ = walker.get_latex_nodes(parsing_state=walker.make_parsing_state(in_math_mode=True))
        return reader.nodelist_to_text(nodes)
    except Exception:  # noqa: BLE001 -- pylatexenc's own specs fail on some malformed input (`\\href` without arguments)
        return None


@functools.lru_cache(maxsize=1)
def _tools() -> tuple[macrospec.LatexContextDb, _Reader]:
    """The parser's macro table and the converter, made once per process."""
    # pylatexenc logs what its tolerant parser recovers from; the text it gives is all we use.
    logging.getLogger("pylatexenc").propagate = False
    script = _ScriptArgument("{")
    walker_context = latexwalker.get_default_latex_context_db()
    walker_context.add_context_category(
        "papersite", prepend=True,
        macros=[macrospec.MacroSpec(name, spec) for name, spec in _ARGUMENTS.items()],
        specials=[macrospec.SpecialsSpec("^", args_parser=script), macrospec.SpecialsSpec("_", args_parser=script)])
    text_context = latex2text.get_default_latex_context_db()
    text_context.add_context_category(
        "papersite", prepend=True,
        macros=[latex2text.MacroTextSpec(name, simplify_repl=repl) for name, repl in _text_specs().items()],
        specials=[latex2text.SpecialsTextSpec("^", simplify_repl=_superscript),
                  latex2text.SpecialsTextSpec("_", simplify_repl=_subscript)])
    text_context.set_unknown_macro_spec(latex2text.MacroTextSpec("", simplify_repl=_unknown))
    # Spaces as the formula has them (we convert the inside of a formula, never its delimiters): a
    # space between two constructs is kept, and so is one after a macro followed by text.
    spaces = {"between-macro-and-chars": False, "between-latex-constructs": True, "after-comment": False, "in-equations": None}
    return walker_context, _Reader(text_context, math_mode="text", strict_latex_spaces=spaces)


def _text_specs() -> dict[str, object]:
    """Macro name -> its text: a string, or a function of the macro's node (and the converter)."""
    specs: dict[str, object] = dict.fromkeys(_SILENT, "")
    specs.update(_SYMBOLS)
    specs.update(dict.fromkeys(_PLAIN, _argument))
    specs.update(dict.fromkeys(_DELIMITER_SIZES, _delimiter))
    specs.update(dict.fromkeys("frac dfrac tfrac cfrac nicefrac".split(), _fraction))
    specs.update(dict.fromkeys("binom dbinom tbinom".split(), _binomial))
    specs.update(dict.fromkeys("overset underset stackrel textcolor".split(), _second))
    specs.update({name: functools.partial(_accent, mark=mark) for name, mark in _ACCENTS.items()})
    specs.update({name: functools.partial(_wrapped, form=form)
                  for name, form in (("pmod", "(mod {})"), ("norm", "‖{}‖"), ("abs", "|{}|"))})
    specs["sqrt"] = _root
    return specs


class _ScriptArgument(macrospec.MacroStandardArgsParser):
    """What `^` and `_` apply to: one character or group as usual, but a macro with its arguments, as TeX
    reads `T^\\frac{a}{b}` (pylatexenc's parser would take `\\frac` alone)."""

    def parse_args(self, w, pos, parsing_state=None):
        token = w.get_token(pos, environments=False, parsing_state=parsing_state)
        if token.tok != "macro" or token.arg == "end":
            return super().parse_args(w, pos, parsing_state=parsing_state)
        nodes, start, length = w.get_latex_nodes(token.pos, read_max_nodes=1, parsing_state=parsing_state)
        return macrospec.ParsedMacroArgs(argspec="{", argnlist=nodes[:1]), pos, start + length - pos


class _Reader(latex2text.LatexNodes2Text):
    """latex2text, with a macro's text set apart as the formula sets it (`1 \\pm \\varepsilon` is `1 ± ε`),
    and a macro that gives a word set apart from what comes before it (`k\\log k` is `k log k`)."""

    def macro_node_to_text(self, node):
        text = super().macro_node_to_text(node)
        before = node.parsing_state.s[max(0, node.pos - 64):node.pos]
        if before[-1:].isspace() or (len(text) > 1 and text[0].isalpha() and before.rstrip()[-1:].isalnum()):
            return " " + text
        return text


def _argument(node, l2tobj) -> str:
    return l2tobj.node_arg_to_text(node, len(node.nodeargd.argnlist) - 1) if node.nodeargd and node.nodeargd.argnlist else ""


def _second(node, l2tobj) -> str:
    return l2tobj.node_arg_to_text(node, 1)


def _delimiter(node, l2tobj) -> str:
    text = _argument(node, l2tobj)
    return "" if text.strip() == "." else text


def _unknown(node) -> str:
    """An unknown macro keeps its name (`\\R` is R); `\\sqrtT`, a one-argument macro run into its letter (TeX
    rejects it, but its author meant `\\sqrt T`), is that macro applied to the letter."""
    name = node.macroname
    if name[:-1] in _ONE_ARGUMENT and name[-1:].isalpha():
        return _convert(f"\\{name[:-1]}{{{name[-1]}}}") or name
    return name if name.isalpha() else ""


def _fraction(node, l2tobj) -> str:
    return f"{_grouped(l2tobj.node_arg_to_text(node, 0))}/{_grouped(l2tobj.node_arg_to_text(node, 1))}"


def _binomial(node, l2tobj) -> str:
    return f"C({l2tobj.node_arg_to_text(node, 0).strip()}, {l2tobj.node_arg_to_text(node, 1).strip()})"


def _root(node, l2tobj) -> str:
    degree = l2tobj.node_arg_to_text(node, 0).strip()  # \sqrt[3]{x}: the optional argument comes first
    sign = {"": "√", "2": "√", "3": "∛", "4": "∜"}.get(degree, degree + "√")
    return sign + _grouped(l2tobj.node_arg_to_text(node, 1))


def _accent(node, l2tobj, mark: str) -> str:
    base = l2tobj.node_arg_to_text(node, 0)
    return base + mark if len(base.strip()) == 1 else base


def _wrapped(node, l2tobj, form: str) -> str:
    return form.format(l2tobj.node_arg_to_text(node, 0))


def _grouped(operand: str) -> str:
    """An operand as it reads after `/` or `√`: `2`, `n`, `x̂`, `√T` alone, `(a+b)` in parentheses."""
    operand = " ".join(operand.split())
    if not operand or re.fullmatch(r"[√∛∜]?[\w.′'\u0300-\u036f\u20d7]+", operand):
        return operand
    return f"({operand})"


def _script_text(node, l2tobj) -> str:
    argument = node.nodeargd.argnlist[0] if node.nodeargd and node.nodeargd.argnlist else None
    return "".join(l2tobj.nodelist_to_text([argument]).split()) if argument is not None else ""


def _superscript(node, l2tobj) -> str:
    text = _script_text(node, l2tobj)
    if text and all(c in _SUPERSCRIPTS for c in text):
        return "".join(_SUPERSCRIPTS[c] for c in text)
    if not text or all(c in _MARKS for c in text):
        return text.replace("'", "′")
    return "^" + (text if text.isalnum() else f"({text})")


def _subscript(node, l2tobj) -> str:
    text = _script_text(node, l2tobj)
    if text and all(c in _SUBSCRIPTS for c in text):
        return "".join(_SUBSCRIPTS[c] for c in text)
    return text
