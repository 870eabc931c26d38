"""The value operators of the measurement, as cosmic-ray operators.

cosmic-ray's core provider supplies ``k -> k +- 1`` (``NumberReplacer``), the
arithmetic swaps, the comparison swaps and the removal of a unary minus; the
operators it lacks are defined here and registered as the provider ``value``
(:func:`register`): ``k -> 2k`` and ``k -> 0``, ``max <-> min``, an index moved by
one, two adjacent positional arguments swapped, and a unary minus added to an
operand.  :data:`VALUE_OPERATORS` is the whole set (names as cosmic-ray stores them
in a session).
"""
from __future__ import annotations

import parso
import parso.python.tree as pt

from cosmic_ray.operators.operator import Example, Operator

CORE = [
    "core/NumberReplacer",
    "core/ReplaceBinaryOperator_Add_Sub", "core/ReplaceBinaryOperator_Sub_Add",
    "core/ReplaceBinaryOperator_Mul_Div", "core/ReplaceBinaryOperator_Div_Mul",
    "core/ReplaceBinaryOperator_Div_FloorDiv", "core/ReplaceBinaryOperator_FloorDiv_Div",
    "core/ReplaceComparisonOperator_Lt_LtE", "core/ReplaceComparisonOperator_LtE_Lt",
    "core/ReplaceComparisonOperator_Gt_GtE", "core/ReplaceComparisonOperator_GtE_Gt",
    "core/ReplaceComparisonOperator_Lt_Gt", "core/ReplaceComparisonOperator_Gt_Lt",
    "core/ReplaceComparisonOperator_LtE_GtE", "core/ReplaceComparisonOperator_GtE_LtE",
    "core/ReplaceComparisonOperator_Eq_NotEq", "core/ReplaceComparisonOperator_NotEq_Eq",
    "core/ReplaceUnaryOperator_Delete_USub",
]


def _text(node, code: str):
    """A leaf standing for ``code`` at ``node``'s place (keeps its prefix)."""
    return pt.Name(node.get_first_leaf().prefix + code, node.start_pos)


def _int_literal(node) -> int | None:
    if node.type != "number":
        return None
    try:
        v = int(node.value, 0)
    except ValueError:
        return None
    return v


class NumberDouble(Operator):
    """An integer literal ``k != 0`` becomes ``2k``."""

    def mutation_positions(self, node):
        if _int_literal(node):
            yield node.start_pos, node.end_pos

    def mutate(self, node, index):
        return pt.Number(node.prefix + str(2 * _int_literal(node)), node.start_pos)

    @classmethod
    def examples(cls):
        return (Example("x = 3", "x = 6"),)


class NumberZero(Operator):
    """An integer literal ``k != 0`` becomes ``0``."""

    def mutation_positions(self, node):
        if _int_literal(node):
            yield node.start_pos, node.end_pos

    def mutate(self, node, index):
        return pt.Number(node.prefix + "0", node.start_pos)

    @classmethod
    def examples(cls):
        return (Example("x = 3", "x = 0"),)


def _called_name(node, name):
    return (node.type == "name" and node.value == name and node.get_next_sibling() is not None
            and node.get_next_sibling().type == "trailer"
            and node.get_next_sibling().children[0].value == "(")


def _swap_name(src, dst):
    class SwapName(Operator):
        def mutation_positions(self, node):
            if _called_name(node, src):
                yield node.start_pos, node.end_pos

        def mutate(self, node, index):
            node.value = dst
            return node

        @classmethod
        def examples(cls):
            return (Example(f"y = {src}(a, b)", f"y = {dst}(a, b)"),)
    SwapName.__name__ = f"Replace_{src}_{dst}"
    return SwapName


ReplaceMaxMin = _swap_name("max", "min")
ReplaceMinMax = _swap_name("min", "max")


def _index(node):
    """The index expression of a subscript trailer ``[i]`` (not a slice, not a string)."""
    if node.type != "trailer" or node.children[0].value != "[":
        return None
    x = node.children[1]
    if x.type in ("subscript", "subscriptlist", "string") or x.type == "strings":
        return None
    return x


class IndexShift(Operator):
    """An index ``a[i]`` becomes ``a[i + 1]`` or ``a[i - 1]``."""

    def mutation_positions(self, node):
        x = _index(node)
        if x is not None:
            yield x.start_pos, x.end_pos
            yield x.start_pos, x.end_pos

    def mutate(self, node, index):
        x = _index(node)
        code = x.get_code(include_prefix=False)
        node.children[1] = _text(x, f"({code} {'+' if index == 0 else '-'} 1)")
        return node

    @classmethod
    def examples(cls):
        return (Example("y = a[i]", "y = a[(i + 1)]"),
                Example("y = a[i]", "y = a[(i - 1)]", occurrence=1))


def _positional(arglist):
    """Indices (in ``arglist.children``) of plain positional arguments, or [] when
    the call has a ``*``/``**`` argument (positions unknown)."""
    if arglist.type != "arglist" or arglist.parent.type != "trailer" \
            or arglist.parent.children[0].value != "(":
        return []
    out = []
    for i, c in enumerate(arglist.children):
        if c.type == "operator":
            continue
        if c.type == "argument" or (c.type == "star_expr"):
            if c.children[0].type == "operator":  # *args / **kw
                return []
            continue  # keyword argument or generator
        out.append(i)
    return out


class SwapArguments(Operator):
    """Two adjacent positional arguments of a call swapped: ``f(a, b) -> f(b, a)``."""

    def _pairs(self, node):
        pos = _positional(node)
        return [(i, j) for i, j in zip(pos, pos[1:]) if j == i + 2 and
                node.children[i].get_code(False) != node.children[j].get_code(False)]

    def mutation_positions(self, node):
        for i, j in self._pairs(node):
            yield node.children[i].start_pos, node.children[j].end_pos

    def mutate(self, node, index):
        i, j = self._pairs(node)[index]
        a, b = node.children[i], node.children[j]
        node.children[i] = _text(a, b.get_code(include_prefix=False))
        node.children[j] = _text(b, a.get_code(include_prefix=False))
        return node

    @classmethod
    def examples(cls):
        return (Example("y = f(a, b)", "y = f(b, a)"),)


_OPERAND_PARENTS = {"arith_expr", "term", "comparison"}


class AddUnaryMinus(Operator):
    """An operand of an arithmetic expression or a comparison gets a unary minus."""

    def mutation_positions(self, node):
        if node.parent is not None and node.parent.type in _OPERAND_PARENTS \
                and node.type in ("name", "number", "atom_expr", "atom", "power") \
                and not (node.type == "name" and node.value in ("None", "True", "False")):
            yield node.start_pos, node.end_pos

    def mutate(self, node, index):
        return _text(node, f"-{node.get_code(include_prefix=False)}")

    @classmethod
    def examples(cls):
        return (Example("y = a + b", "y = -a + b"),)


class NumberNegate(Operator):
    """An integer literal ``k != 0`` becomes ``-k``."""

    def mutation_positions(self, node):
        if _int_literal(node):
            yield node.start_pos, node.end_pos

    def mutate(self, node, index):
        return pt.Number(node.prefix + f"({-_int_literal(node)})", node.start_pos)

    @classmethod
    def examples(cls):
        return (Example("x = 3", "x = (-3)"),)


class NumberTriple(Operator):
    """An integer literal ``k != 0`` becomes ``3k``."""

    def mutation_positions(self, node):
        if _int_literal(node):
            yield node.start_pos, node.end_pos

    def mutate(self, node, index):
        return pt.Number(node.prefix + str(3 * _int_literal(node)), node.start_pos)

    @classmethod
    def examples(cls):
        return (Example("x = 3", "x = 9"),)


class NumberHalve(Operator):
    """An integer literal ``|k| >= 2`` becomes ``k // 2``."""

    def mutation_positions(self, node):
        v = _int_literal(node)
        if v is not None and abs(v) >= 2:
            yield node.start_pos, node.end_pos

    def mutate(self, node, index):
        return pt.Number(node.prefix + str(_int_literal(node) // 2), node.start_pos)

    @classmethod
    def examples(cls):
        return (Example("x = 6", "x = 3"),)


class DropAbs(Operator):
    """``abs(x)`` becomes ``(x)``."""

    def mutation_positions(self, node):
        if _called_name(node, "abs"):
            yield node.start_pos, node.end_pos

    def mutate(self, node, index):
        node.value = ""
        return node

    @classmethod
    def examples(cls):
        return (Example("y = abs(a - b)", "y = (a - b)"),)


_OPERATORS = {op.__name__: op for op in (NumberDouble, NumberZero, ReplaceMaxMin, ReplaceMinMax,
                                         IndexShift, SwapArguments, AddUnaryMinus, NumberNegate,
                                         NumberTriple, NumberHalve, DropAbs)}


class ValueOperators:
    """cosmic-ray operator provider ``value``."""

    def __iter__(self):
        return iter(_OPERATORS)

    def __getitem__(self, name):
        return _OPERATORS[name]


VALUE_OPERATORS = CORE + [f"value/{n}" for n in (
    "NumberDouble", "NumberZero", "Replace_max_min", "Replace_min_max", "IndexShift",
    "SwapArguments", "AddUnaryMinus")]

#: a second value operator set, disjoint from :data:`VALUE_OPERATORS`: other arithmetic
#: and comparison swaps, boolean connectives, other literal changes, a dropped ``abs``
VALUE_B_OPERATORS = [
    "core/ReplaceBinaryOperator_Add_Mul", "core/ReplaceBinaryOperator_Mul_Add",
    "core/ReplaceBinaryOperator_Sub_Mul",
    "core/ReplaceComparisonOperator_Lt_NotEq", "core/ReplaceComparisonOperator_Gt_NotEq",
    "core/ReplaceComparisonOperator_LtE_Eq", "core/ReplaceComparisonOperator_GtE_Eq",
    "core/ReplaceAndWithOr", "core/ReplaceOrWithAnd",
    "value/NumberNegate", "value/NumberTriple", "value/NumberHalve", "value/DropAbs",
]

#: the named operator sets (``python -m mutation init --operators NAME``)
OPERATOR_SETS = {"value": VALUE_OPERATORS, "value-b": VALUE_B_OPERATORS}


def operator_set(spec: str) -> list[str]:
    """The cosmic-ray operator names of ``spec``: a name of :data:`OPERATOR_SETS`, or
    ``package.module:NAME`` — a list of operator names in an importable module (a set
    the project does not see; importing it may register its own cosmic-ray provider).
    Raises ``ValueError`` naming the known sets, ``ImportError``/``AttributeError``
    for a module or name that does not exist."""
    if spec in OPERATOR_SETS:
        return list(OPERATOR_SETS[spec])
    if ":" not in spec:
        raise ValueError(f"unknown operator set {spec!r}; named sets: "
                         + ", ".join(OPERATOR_SETS) + ", or package.module:NAME")
    import importlib
    mod, name = spec.split(":", 1)
    return list(getattr(importlib.import_module(mod), name))


def register() -> None:
    """Add the provider ``value`` to cosmic-ray's table of operator providers
    (idempotent; cosmic-ray reads its providers from entry points at import)."""
    import cosmic_ray.plugins
    cosmic_ray.plugins.OPERATOR_PROVIDERS.setdefault("value", ValueOperators())
