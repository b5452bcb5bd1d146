"""God's secret rule for Eleusis, written in a small language the companion can judge.

    if prev is court then card is odd else card is even
    card.colour != prev.colour
    count red in last 3 >= 2 and card is black

A rule is one condition on the **candidate** (``card``) and the cards before it in the main
line (``prev``, ``prev2`` ... ``prev12``, also ``back(n)``), or on the candidate's position.
The full reference (grammar, every word, the French aliases) is ``docs/ELEUSIS_RULES.md``.

**Missing cards: the benefit of the doubt.** Near the start of the line a rule may read a card
that does not exist (the first card has no ``prev``). Such a card is *unknown*, and a card is
refused only when the rule is broken *whatever the unknown cards would be*: a test on an unknown
card is unknown; ``and``, ``or`` and ``not`` follow everyday logic (false and unknown is false,
true or unknown is true); ``if unknown then A else B`` is A when A and B agree, else unknown;
numbers built from unknown cards are ranges (an unknown value is 1 to 13, ``count`` counts the
missing cards as maybe); a rule that ends unknown accepts the card. So a rule about the previous
card accepts any first card, and ``card is red`` still wants a red one. The reasoning is sound
(a refusal is always right) but not complete: a contradiction about one unknown card, such as
``prev is red and prev is black``, stays unknown and accepts.

**Why parsing is safe.** The text is read character by character from a short whitelist (ASCII
letters and digits, the French accented letters, a few symbols, spaces), limited in length and
in nesting, turned into frozen dataclasses and type-checked; judging a card calls closures built
from those nodes. Nothing is ever evaluated by Python: a hostile text can only be refused with a
:class:`RuleSyntaxError`.
"""

from __future__ import annotations

import enum
import math
import operator
import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from companion.games.eleusis.cards import Card, Suit

MAX_LENGTH = 500  # characters of rule text
MAX_NESTING = 20  # parentheses, not, if inside one another
MAX_TREE_DEPTH = 40  # levels of the parsed rule (long chains of + count too)
MAX_BACK = 12  # prev12, back(12), count ... in last 12
MAX_NUMBER = 999
MOD_LOW, MOD_HIGH = 2, 100
SNIPPET = 30  # characters of rule text quoted in an error


# --- Errors ---------------------------------------------------------------------------------

MESSAGES: dict[str, str] = {
    "empty": "The rule is empty: write a condition such as “card is red”.",
    "too_long": "The rule is too long: at most {limit} characters.",
    "too_deep": "The rule is nested too deeply: at most {limit} levels.",
    "bad_character": "The character “{found}” cannot be used in a rule.",
    "unknown_word": "The word “{found}” is not part of the rule language.",
    "number_too_large": "The number {found} is too large: at most {limit}.",
    "missing_value": "A value is needed here: a number, card.value, a colour, a suit, "
    "position, count ... or a condition.",
    "missing_property": "After “is” comes a property: red, black, court, low, honour, odd, "
    "even or a suit.",
    "missing_attribute": "After the dot comes value, colour or suit.",
    "missing_then": "“then” is missing: if ... then ... else ...",
    "missing_else": "“else” is missing: if ... then ... else ...",
    "missing_close": "A closing parenthesis “)” is missing (the one opened at column {opened}).",
    "back_form": "back is written with a number in parentheses, such as back(2).",
    "back_range": "{found} reaches too far back: 1 to {limit} cards.",
    "count_form": "count is written like “count red in last 3”.",
    "mod_range": "mod needs a whole number from {low} to {high}.",
    "trailing_text": "The rule should end before “{found}”.",
    "not_a_condition": "“{found}” is not a condition (something true or false).",
    "not_a_number": "“{found}” is not a number.",
    "card_needs_attribute": "“{found}” is a card: compare its value, colour or suit "
    "(such as card.value).",
    "attribute_needs_card": "“{found}” is not a card: only a card has a value, colour or suit.",
    "mismatched_comparison": "“{left}” and “{right}” are not the same kind of thing.",
    "order_needs_numbers": "“{operator}” compares numbers only; colours and suits take = or !=.",
    "is_needs_card": "“{found}” is not a card or a number: “is” tests a card's property.",
    "number_is_odd_or_even": "A number can only be odd or even, not “{found}”.",
    "position_needs_mod": "position is read through mod or odd/even only, such as "
    "“position mod 3 = 1” or “position is odd”.",
}


# The params of a RuleSyntaxError that quote the rule as written: a secret rule's error said
# where others may hear or read it leaves them out (``eleusis.rule_errors_masked`` in the catalogs).
QUOTING_PARAMS = frozenset({"found", "left", "right", "operator"})


class RuleSyntaxError(ValueError):
    """A rule that cannot be read. ``code`` is the catalog key (``eleusis.rule_errors.<code>``),
    ``params`` its placeholders and ``column`` the 1-based character where the trouble is."""

    def __init__(self, code: str, column: int, **params: str | int) -> None:
        self.code = code
        self.column = column
        self.params: dict[str, str | int] = params
        message = MESSAGES[code].format(**params)
        super().__init__(f"{message} (column {column})")


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET else text[: SNIPPET - 1] + "…"


def _shown(character: str) -> str:
    if character.isprintable() and not character.isspace():
        return character
    return f"U+{ord(character):04X}"


# --- Tokens ---------------------------------------------------------------------------------

_ALIASES: dict[str, str] = {
    "if": "si",
    "then": "alors",
    "else": "sinon",
    "and": "et",
    "or": "ou",
    "not": "non pas",
    "is": "est",
    "true": "vrai",
    "false": "faux",
    "mod": "modulo",
    "count": "compte",
    "in": "dans parmi",
    "last": "derniers dernières dernieres",
    "position": "",
    "card": "carte",
    "prev": "prec préc précédente precedente",
    "back": "avant",
    "value": "rank valeur rang",
    "colour": "color couleur",
    "suit": "enseigne",
    "red": "rouge",
    "black": "noire noir",
    "court": "face habillé habillée habille habillee",
    "low": "basse bas",
    "honour": "honor honneur",
    "odd": "impaire impair",
    "even": "paire pair",
    "spades": "spade pique",
    "hearts": "heart coeur cœur",
    "diamonds": "diamond carreau",
    "clubs": "club trèfle trefle",
    "ace": "a as",
    "jack": "j valet",
    "queen": "q dame",
    "king": "k roi",
}
WORDS: dict[str, str] = {
    alias: canonical
    for canonical, aliases in _ALIASES.items()
    for alias in (canonical, *aliases.split())
}
RANK_WORDS = {"ace": 1, "jack": 11, "queen": 12, "king": 13}
SUIT_WORDS = {
    "spades": Suit.SPADES,
    "hearts": Suit.HEARTS,
    "diamonds": Suit.DIAMONDS,
    "clubs": Suit.CLUBS,
}
COLOUR_WORDS = {"red": True, "black": False}
AttributeName: TypeAlias = Literal["value", "colour", "suit"]
Comparison: TypeAlias = Literal["=", "!=", "<", "<=", ">", ">="]
ATTRIBUTES: dict[str, AttributeName] = {"value": "value", "colour": "colour", "suit": "suit"}
COMPARISONS: dict[str, Comparison] = {
    "=": "=",
    "!=": "!=",
    "<": "<",
    "<=": "<=",
    ">": ">",
    ">=": ">=",
}
_ARITHMETIC: dict[str, Literal["+", "-"]] = {"+": "+", "-": "-"}

PROPERTIES: dict[str, Callable[[Card], bool]] = {
    "red": lambda c: c.red,
    "black": lambda c: not c.red,
    "court": lambda c: c.court,
    "low": lambda c: c.low,
    "honour": lambda c: c.honour,
    "odd": lambda c: c.odd,
    "even": lambda c: not c.odd,
    "spades": lambda c: c.suit is Suit.SPADES,
    "hearts": lambda c: c.suit is Suit.HEARTS,
    "diamonds": lambda c: c.suit is Suit.DIAMONDS,
    "clubs": lambda c: c.suit is Suit.CLUBS,
}

_LETTERS = frozenset(string.ascii_letters + "àâäéèêëîïôöùûüçœ" + "àâäéèêëîïôöùûüçœ".upper())
_DIGITS = frozenset(string.digits)
_SPACES = frozenset(" \t\r\n")
_SYMBOLS = {"<=": "<=", ">=": ">=", "!=": "!=", "==": "=", "≤": "<=", "≥": ">=", "≠": "!="}
_SYMBOLS.update({s: s for s in "().+-=<>"})
_PREV_N = re.compile(r"(?:prev|prec|préc)(\d+)")


class TokenKind(enum.Enum):
    WORD = "word"
    NUMBER = "number"
    SYMBOL = "symbol"
    END = "end"


@dataclass(frozen=True)
class Token:
    kind: TokenKind
    value: str  # the canonical word ("card" for "carte"), the number's digits or the symbol
    start: int  # 0-based offset in the text
    end: int

    @property
    def column(self) -> int:
        return self.start + 1


def tokenize(text: str) -> list[Token]:
    """The rule's tokens, ending with an END token; every word is checked against the
    vocabulary here, so the parser only ever sees known words."""
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in _SPACES:
            i += 1
        elif ch in _DIGITS:
            j = i
            while j < len(text) and text[j] in _DIGITS:
                j += 1
            digits = text[i:j]
            if len(digits) > 3 or int(digits) > MAX_NUMBER:
                raise RuleSyntaxError(
                    "number_too_large", i + 1, found=_snippet(digits), limit=MAX_NUMBER
                )
            tokens.append(Token(TokenKind.NUMBER, str(int(digits)), i, j))
            i = j
        elif ch in _LETTERS:
            j = i
            while j < len(text) and (text[j] in _LETTERS or text[j] in _DIGITS):
                j += 1
            tokens.append(_word(text[i:j], i, j))
            i = j
        elif len(text[i : i + 2]) == 2 and text[i : i + 2] in _SYMBOLS:
            tokens.append(Token(TokenKind.SYMBOL, _SYMBOLS[text[i : i + 2]], i, i + 2))
            i += 2
        elif ch in _SYMBOLS:
            tokens.append(Token(TokenKind.SYMBOL, _SYMBOLS[ch], i, i + 1))
            i += 1
        else:
            raise RuleSyntaxError("bad_character", i + 1, found=_shown(ch))
    tokens.append(Token(TokenKind.END, "", len(text), len(text)))
    return tokens


def _word(source: str, start: int, end: int) -> Token:
    word = source.lower()
    if word in WORDS:
        return Token(TokenKind.WORD, WORDS[word], start, end)
    back = _PREV_N.fullmatch(word)
    if back:
        # prev3 is read as the three tokens of back(3)
        return Token(TokenKind.WORD, f"back{int(back.group(1))}", start, end)
    raise RuleSyntaxError("unknown_word", start + 1, found=_snippet(source))


# --- The parsed rule ------------------------------------------------------------------------


class Kind(enum.Enum):
    CONDITION = "condition"
    NUMBER = "number"
    CARD = "card"
    COLOUR = "colour"
    SUIT = "suit"


@dataclass(frozen=True)
class Truth:
    value: bool


@dataclass(frozen=True)
class Number:
    value: int


@dataclass(frozen=True)
class ColourName:
    red: bool


@dataclass(frozen=True)
class SuitName:
    suit: Suit


@dataclass(frozen=True)
class CardRef:
    back: int  # 0: the candidate; 1: the previous card; 2: the one before ...


@dataclass(frozen=True)
class Attribute:
    card: CardRef
    name: AttributeName


@dataclass(frozen=True)
class Position:
    """The candidate's position in the main line: the first card is at position 1."""


@dataclass(frozen=True)
class Count:
    """How many of the ``last`` cards before the candidate have ``prop``."""

    prop: str
    last: int


@dataclass(frozen=True)
class Arith:
    op: Literal["+", "-"]
    left: Node
    right: Node


@dataclass(frozen=True)
class Mod:
    operand: Node
    divisor: int


@dataclass(frozen=True)
class Compare:
    op: Comparison
    left: Node
    right: Node


@dataclass(frozen=True)
class HasProperty:
    card: CardRef
    prop: str


@dataclass(frozen=True)
class Parity:
    operand: Node
    odd: bool


@dataclass(frozen=True)
class Not:
    operand: Node


@dataclass(frozen=True)
class And:
    operands: tuple[Node, ...]


@dataclass(frozen=True)
class Or:
    operands: tuple[Node, ...]


@dataclass(frozen=True)
class If:
    test: Node
    then: Node
    otherwise: Node


Node: TypeAlias = (
    Truth
    | Number
    | ColourName
    | SuitName
    | CardRef
    | Attribute
    | Position
    | Count
    | Arith
    | Mod
    | Compare
    | HasProperty
    | Parity
    | Not
    | And
    | Or
    | If
)

_CONDITIONS = (Truth, Compare, HasProperty, Parity, Not, And, Or, If)
_NUMBERS = (Number, Position, Count, Arith, Mod)


def kind_of(node: Node) -> Kind:
    if isinstance(node, _CONDITIONS):
        return Kind.CONDITION
    if isinstance(node, _NUMBERS):
        return Kind.NUMBER
    if isinstance(node, ColourName):
        return Kind.COLOUR
    if isinstance(node, SuitName):
        return Kind.SUIT
    if isinstance(node, CardRef):
        return Kind.CARD
    return {"value": Kind.NUMBER, "colour": Kind.COLOUR, "suit": Kind.SUIT}[node.name]


def children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, Attribute | HasProperty):
        return (node.card,)
    if isinstance(node, Arith | Compare):
        return (node.left, node.right)
    if isinstance(node, Mod | Parity | Not):
        return (node.operand,)
    if isinstance(node, And | Or):
        return node.operands
    if isinstance(node, If):
        return (node.test, node.then, node.otherwise)
    return ()


def walk(node: Node) -> list[Node]:
    """Every node of the tree, parents first."""
    out, todo = [], [node]
    while todo:
        current = todo.pop()
        out.append(current)
        todo.extend(reversed(children(current)))
    return out


def lookback_of(node: Node) -> int:
    reach = [n.back for n in walk(node) if isinstance(n, CardRef)]
    reach += [n.last for n in walk(node) if isinstance(n, Count)]
    return max(reach, default=0)


def period_of(node: Node) -> int:
    """The rule reads the position only modulo this number (1: it does not read it at all).

    The parser lets ``position`` in only under a ``mod n`` or an odd/even test, with nothing but
    ``+`` and ``-`` in between, so the position counts modulo n (or 2) there."""
    period = 1
    for n in walk(node):
        if isinstance(n, Mod | Parity) and _reads_position(n.operand):
            period = math.lcm(period, n.divisor if isinstance(n, Mod) else 2)
    return period


def _reads_position(node: Node) -> bool:
    if isinstance(node, Position):
        return True
    return isinstance(node, Arith) and (_reads_position(node.left) or _reads_position(node.right))


# --- Parser ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Parsed:
    node: Node
    start: int
    end: int
    depth: int
    loose: tuple[int, ...] = ()  # columns of a ``position`` not yet under a mod

    @property
    def kind(self) -> Kind:
        return kind_of(self.node)

    @property
    def column(self) -> int:
        return self.start + 1


class _Parser:
    """Recursive descent, one method per grammar line of docs/ELEUSIS_RULES.md."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0
        self.nesting = 0

    # tokens

    @property
    def token(self) -> Token:
        return self.tokens[self.i]

    def at(self, value: str) -> bool:
        return self.token.kind in (TokenKind.WORD, TokenKind.SYMBOL) and self.token.value == value

    def take(self) -> Token:
        token = self.token
        self.i += 1
        return token

    def expect(self, value: str, code: str, **params: str | int) -> Token:
        if not self.at(value):
            raise RuleSyntaxError(code, self.token.column, **params)
        return self.take()

    def made(
        self, node: Node, start: int, end: int, *parts: _Parsed, settles: bool = False
    ) -> _Parsed:
        """A new tree node over ``parts``; ``settles``: it reads its number modulo something,
        so a ``position`` inside is fine."""
        depth = 1 + max((p.depth for p in parts), default=0)
        if depth > MAX_TREE_DEPTH:
            raise RuleSyntaxError("too_deep", start + 1, limit=MAX_TREE_DEPTH)
        loose = () if settles else tuple(c for p in parts for c in p.loose)
        return _Parsed(node, start, end, depth, loose)

    def source(self, parsed: _Parsed) -> str:
        return _snippet(self.text[parsed.start : parsed.end])

    def nest(self) -> None:
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise RuleSyntaxError("too_deep", self.token.column, limit=MAX_NESTING)

    # checks

    def condition(self, parsed: _Parsed) -> _Parsed:
        if parsed.kind is not Kind.CONDITION:
            raise RuleSyntaxError("not_a_condition", parsed.column, found=self.source(parsed))
        return parsed

    def number(self, parsed: _Parsed) -> _Parsed:
        if parsed.kind is not Kind.NUMBER:
            raise RuleSyntaxError("not_a_number", parsed.column, found=self.source(parsed))
        return parsed

    def settled(self, parsed: _Parsed) -> _Parsed:
        if parsed.loose:
            raise RuleSyntaxError("position_needs_mod", parsed.loose[0])
        return parsed

    # grammar

    def rule(self) -> _Parsed:
        if self.token.kind is TokenKind.END:
            raise RuleSyntaxError("empty", 1)
        parsed = self.condition(self.expression())
        after = self.token
        if after.kind is not TokenKind.END:
            rest = self.text[after.start :]
            raise RuleSyntaxError("trailing_text", after.column, found=_snippet(rest))
        return parsed

    def expression(self) -> _Parsed:
        self.nest()
        parsed = self.if_then_else() if self.at("if") else self.disjunction()
        self.nesting -= 1
        return parsed

    def if_then_else(self) -> _Parsed:
        start = self.take().start
        test = self.condition(self.expression())
        self.expect("then", "missing_then")
        then = self.condition(self.expression())
        self.expect("else", "missing_else")
        otherwise = self.condition(self.expression())
        node = If(test.node, then.node, otherwise.node)
        return self.made(node, start, otherwise.end, test, then, otherwise)

    def disjunction(self) -> _Parsed:
        parts = [self.conjunction()]
        while self.at("or"):
            self.take()
            parts.append(self.conjunction())
        if len(parts) == 1:
            return parts[0]
        operands = tuple(self.condition(p).node for p in parts)
        return self.made(Or(operands), parts[0].start, parts[-1].end, *parts)

    def conjunction(self) -> _Parsed:
        parts = [self.negation()]
        while self.at("and"):
            self.take()
            parts.append(self.negation())
        if len(parts) == 1:
            return parts[0]
        operands = tuple(self.condition(p).node for p in parts)
        return self.made(And(operands), parts[0].start, parts[-1].end, *parts)

    def negation(self) -> _Parsed:
        if not self.at("not"):
            return self.test()
        start = self.take().start
        self.nest()
        operand = self.condition(self.negation())
        self.nesting -= 1
        return self.made(Not(operand.node), start, operand.end, operand)

    def test(self) -> _Parsed:
        left = self.sum()
        if self.token.kind is TokenKind.SYMBOL and self.token.value in COMPARISONS:
            op = self.take().value
            right = self.sum()
            return self.comparison(op, left, right)
        if self.at("is"):
            self.take()
            return self.property_test(left)
        return left

    def comparison(self, symbol: str, left: _Parsed, right: _Parsed) -> _Parsed:
        op = COMPARISONS[symbol]
        for side in (left, right):
            if side.kind is Kind.CARD:
                raise RuleSyntaxError("card_needs_attribute", side.column, found=self.source(side))
        if op not in ("=", "!=") and Kind.NUMBER not in (left.kind, right.kind):
            raise RuleSyntaxError("order_needs_numbers", left.column, operator=op)
        if op not in ("=", "!="):
            self.number(left)
            self.number(right)
        elif left.kind is not right.kind:
            raise RuleSyntaxError(
                "mismatched_comparison",
                left.column,
                left=self.source(left),
                right=self.source(right),
            )
        self.settled(left)
        self.settled(right)
        node = Compare(op, left.node, right.node)
        return self.made(node, left.start, right.end, left, right)

    def property_test(self, subject: _Parsed) -> _Parsed:
        negated = self.at("not")
        if negated:
            self.take()
        word = self.token
        if word.kind is not TokenKind.WORD or word.value not in PROPERTIES:
            raise RuleSyntaxError("missing_property", word.column)
        self.take()
        if subject.kind is Kind.CARD and isinstance(subject.node, CardRef):
            node: Node = HasProperty(subject.node, word.value)
            parsed = self.made(node, subject.start, word.end, subject)
        elif subject.kind is Kind.NUMBER:
            if word.value not in ("odd", "even"):
                found = self.text[word.start : word.end]
                raise RuleSyntaxError("number_is_odd_or_even", word.column, found=found)
            node = Parity(subject.node, word.value == "odd")
            parsed = self.made(node, subject.start, word.end, subject, settles=True)
        else:
            raise RuleSyntaxError("is_needs_card", subject.column, found=self.source(subject))
        if negated:
            parsed = self.made(Not(parsed.node), parsed.start, parsed.end, parsed)
        return parsed

    def sum(self) -> _Parsed:
        left = self.term()
        while self.token.kind is TokenKind.SYMBOL and self.token.value in _ARITHMETIC:
            op = _ARITHMETIC[self.take().value]
            right = self.number(self.term())
            node = Arith(op, self.number(left).node, right.node)
            left = self.made(node, left.start, right.end, left, right)
        return left

    def term(self) -> _Parsed:
        operand = self.primary()
        if self.at("."):
            raise RuleSyntaxError(
                "attribute_needs_card", operand.column, found=self.source(operand)
            )
        while self.at("mod"):
            self.take()
            self.number(operand)
            divisor = self.token
            if divisor.kind is not TokenKind.NUMBER or not (
                MOD_LOW <= int(divisor.value) <= MOD_HIGH
            ):
                raise RuleSyntaxError("mod_range", divisor.column, low=MOD_LOW, high=MOD_HIGH)
            self.take()
            node = Mod(operand.node, int(divisor.value))
            operand = self.made(node, operand.start, divisor.end, operand, settles=True)
        return operand

    def primary(self) -> _Parsed:
        token = self.token
        if token.kind is TokenKind.NUMBER:
            self.take()
            return _Parsed(Number(int(token.value)), token.start, token.end, 1)
        if self.at("("):
            return self.parenthesised()
        if token.kind is not TokenKind.WORD:
            raise RuleSyntaxError("missing_value", token.column)
        word = token.value
        if word in ("card", "prev", "back") or word.startswith("back"):
            return self.card_or_attribute()
        if word == "count":
            return self.count()
        leaf: Node
        if word in RANK_WORDS:
            leaf = Number(RANK_WORDS[word])
        elif word in COLOUR_WORDS:
            leaf = ColourName(COLOUR_WORDS[word])
        elif word in SUIT_WORDS:
            leaf = SuitName(SUIT_WORDS[word])
        elif word in ("true", "false"):
            leaf = Truth(word == "true")
        elif word == "position":
            self.take()
            return _Parsed(Position(), token.start, token.end, 1, (token.column,))
        else:
            raise RuleSyntaxError("missing_value", token.column)
        self.take()
        return _Parsed(leaf, token.start, token.end, 1)

    def parenthesised(self) -> _Parsed:
        opening = self.take()
        inner = self.expression()
        closing = self.expect(")", "missing_close", opened=opening.column)
        return _Parsed(inner.node, opening.start, closing.end, inner.depth, inner.loose)

    def card_or_attribute(self) -> _Parsed:
        token = self.take()
        start, end = token.start, token.end
        if token.value == "card":
            back = 0
        elif token.value == "prev":
            back = 1
        elif token.value == "back":
            self.expect("(", "back_form")
            number = self.token
            if number.kind is not TokenKind.NUMBER:
                raise RuleSyntaxError("back_form", number.column)
            self.take()
            end = self.expect(")", "back_form").end
            back = int(number.value)
        else:
            back = int(token.value.removeprefix("back"))
        if not 1 <= back <= MAX_BACK and token.value != "card":
            found = _snippet(self.text[start:end])
            raise RuleSyntaxError("back_range", start + 1, found=found, limit=MAX_BACK)
        card = CardRef(back)
        if not self.at("."):
            return _Parsed(card, start, end, 1)
        self.take()
        name = self.token
        if name.kind is not TokenKind.WORD or name.value not in ATTRIBUTES:
            raise RuleSyntaxError("missing_attribute", name.column)
        self.take()
        node = Attribute(card, ATTRIBUTES[name.value])
        return _Parsed(node, start, name.end, 2)

    def count(self) -> _Parsed:
        start = self.take().start
        prop = self.token
        if prop.kind is not TokenKind.WORD or prop.value not in PROPERTIES:
            raise RuleSyntaxError("count_form", prop.column)
        self.take()
        self.expect("in", "count_form")
        self.expect("last", "count_form")
        number = self.token
        if number.kind is not TokenKind.NUMBER:
            raise RuleSyntaxError("count_form", number.column)
        self.take()
        last = int(number.value)
        if not 1 <= last <= MAX_BACK:
            found = _snippet(self.text[start : number.end])
            raise RuleSyntaxError("back_range", number.column, found=found, limit=MAX_BACK)
        return _Parsed(Count(prop.value, last), start, number.end, 1)


# --- Judging a card -------------------------------------------------------------------------

Frame: TypeAlias = tuple[Card, ...]  # the recent cards of the line, then the candidate
Test: TypeAlias = Callable[[Frame, int], bool]
Amount: TypeAlias = Callable[[Frame, int], int]
Thing: TypeAlias = Callable[[Frame, int], object]

_ORDER: dict[str, Callable[[Any, Any], bool]] = {
    "=": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def _compile_test(node: Node) -> Test:
    """A closure judging a condition on a frame holding every card the rule reads."""
    if isinstance(node, Truth):
        value = node.value
        return lambda f, p: value
    if isinstance(node, HasProperty):
        has, k = PROPERTIES[node.prop], -1 - node.card.back
        return lambda f, p: has(f[k])
    if isinstance(node, Parity):
        amount, odd = _compile_amount(node.operand), node.odd
        return lambda f, p: (amount(f, p) % 2 == 1) is odd
    if isinstance(node, Compare):
        compare, left, right = _ORDER[node.op], _compile_any(node.left), _compile_any(node.right)
        return lambda f, p: compare(left(f, p), right(f, p))
    if isinstance(node, Not):
        operand = _compile_test(node.operand)
        return lambda f, p: not operand(f, p)
    if isinstance(node, And | Or):
        tests = [_compile_test(n) for n in node.operands]
        joined = tests.pop()
        while tests:
            joined = (_both if isinstance(node, And) else _either)(tests.pop(), joined)
        return joined
    if isinstance(node, If):
        test, then = _compile_test(node.test), _compile_test(node.then)
        otherwise = _compile_test(node.otherwise)
        return lambda f, p: then(f, p) if test(f, p) else otherwise(f, p)
    raise AssertionError(f"not a condition: {node!r}")


def _both(first: Test, then: Test) -> Test:
    return lambda f, p: first(f, p) and then(f, p)


def _either(first: Test, then: Test) -> Test:
    return lambda f, p: first(f, p) or then(f, p)


def _compile_amount(node: Node) -> Amount:
    if isinstance(node, Number):
        value = node.value
        return lambda f, p: value
    if isinstance(node, Position):
        return lambda f, p: p
    if isinstance(node, Attribute):
        k = -1 - node.card.back
        return lambda f, p: f[k].rank
    if isinstance(node, Count):
        has, last = PROPERTIES[node.prop], node.last
        return lambda f, p: sum(1 for k in range(2, last + 2) if has(f[-k]))
    if isinstance(node, Arith):
        left, right = _compile_amount(node.left), _compile_amount(node.right)
        if node.op == "+":
            return lambda f, p: left(f, p) + right(f, p)
        return lambda f, p: left(f, p) - right(f, p)
    if isinstance(node, Mod):
        operand, divisor = _compile_amount(node.operand), node.divisor
        return lambda f, p: operand(f, p) % divisor
    raise AssertionError(f"not a number: {node!r}")


def _compile_any(node: Node) -> Thing:
    kind = kind_of(node)
    if kind is Kind.NUMBER:
        return _compile_amount(node)
    if kind is Kind.CONDITION:
        return _compile_test(node)
    if isinstance(node, ColourName | SuitName):
        value: object = node.red if isinstance(node, ColourName) else node.suit
        return lambda f, p: value
    if isinstance(node, Attribute):
        k = -1 - node.card.back
        if node.name == "colour":
            return lambda f, p: f[k].red
        return lambda f, p: f[k].suit
    raise AssertionError(f"not a value: {node!r}")


# Unknown cards (before the start of the line): three-valued logic, numbers as ranges.

Span: TypeAlias = tuple[int, int]  # lowest and highest possible value


def truth_with_unknowns(node: Node, frame: Sequence[Card | None], position: int) -> bool | None:
    """A condition's truth when some cards of ``frame`` (the cards before the candidate, then
    the candidate) are unknown (None): None when the answer depends on them. With no unknown
    card it is the plain truth, as the compiled rule computes it."""
    if isinstance(node, Truth):
        return node.value
    if isinstance(node, HasProperty):
        card = frame[-1 - node.card.back]
        return None if card is None else PROPERTIES[node.prop](card)
    if isinstance(node, Parity):
        low, high = _span(node.operand, frame, position)
        return (low % 2 == 1) is node.odd if low == high else None
    if isinstance(node, Compare):
        return _compare_with_unknowns(node, frame, position)
    if isinstance(node, Not):
        value = truth_with_unknowns(node.operand, frame, position)
        return None if value is None else not value
    if isinstance(node, And):
        values = [truth_with_unknowns(n, frame, position) for n in node.operands]
        return False if False in values else (None if None in values else True)
    if isinstance(node, Or):
        values = [truth_with_unknowns(n, frame, position) for n in node.operands]
        return True if True in values else (None if None in values else False)
    if isinstance(node, If):
        test = truth_with_unknowns(node.test, frame, position)
        if test is not None:
            return truth_with_unknowns(node.then if test else node.otherwise, frame, position)
        then = truth_with_unknowns(node.then, frame, position)
        return then if then == truth_with_unknowns(node.otherwise, frame, position) else None
    raise AssertionError(f"not a condition: {node!r}")


def _compare_with_unknowns(
    node: Compare, frame: Sequence[Card | None], position: int
) -> bool | None:
    if kind_of(node.left) is not Kind.NUMBER:
        left, right = (
            _value_with_unknowns(node.left, frame, position),
            _value_with_unknowns(node.right, frame, position),
        )
        if left is None or right is None:
            return None
        return _ORDER[node.op](left, right)
    (a, b), (c, d) = _span(node.left, frame, position), _span(node.right, frame, position)
    if node.op in ("=", "!="):
        if a == b == c == d:
            equal: bool | None = True
        elif b < c or d < a:
            equal = False
        else:
            equal = None
        return equal if node.op == "=" or equal is None else not equal
    holds = [_ORDER[node.op](x, y) for x in (a, b) for y in (c, d)]  # the corners decide
    return True if all(holds) else (None if any(holds) else False)


def _value_with_unknowns(node: Node, frame: Sequence[Card | None], position: int) -> object:
    if kind_of(node) is Kind.CONDITION:
        return truth_with_unknowns(node, frame, position)
    if isinstance(node, ColourName):
        return node.red
    if isinstance(node, SuitName):
        return node.suit
    if isinstance(node, Attribute):
        card = frame[-1 - node.card.back]
        if card is None:
            return None
        return card.red if node.name == "colour" else card.suit
    raise AssertionError(f"not a colour or suit: {node!r}")


def _span(node: Node, frame: Sequence[Card | None], position: int) -> Span:
    if isinstance(node, Number):
        return node.value, node.value
    if isinstance(node, Position):
        return position, position
    if isinstance(node, Attribute):
        card = frame[-1 - node.card.back]
        return (1, 13) if card is None else (card.rank, card.rank)
    if isinstance(node, Count):
        cards = [frame[-1 - k] for k in range(1, node.last + 1)]
        sure = sum(1 for c in cards if c is not None and PROPERTIES[node.prop](c))
        return sure, sure + sum(1 for c in cards if c is None)
    if isinstance(node, Arith):
        (a, b), (c, d) = _span(node.left, frame, position), _span(node.right, frame, position)
        return (a + c, b + d) if node.op == "+" else (a - d, b - c)
    if isinstance(node, Mod):
        low, high = _span(node.operand, frame, position)
        n = node.divisor
        if high - low + 1 >= n or low % n > high % n:
            return (0, n - 1) if low != high else (low % n, low % n)
        return low % n, high % n
    raise AssertionError(f"not a number: {node!r}")


# --- The rule -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """A parsed rule. ``lookback``: how many cards before the candidate it may read;
    ``period``: it reads the position only modulo this (1 when it does not read it). God's rule
    is a secret: its ``repr`` shows neither its text nor its tree."""

    text: str = field(repr=False)
    tree: Node = field(repr=False)
    lookback: int
    period: int
    _test: Test = field(repr=False, compare=False)

    def accepts(self, line: Sequence[Card], card: Card) -> bool:
        """Whether ``card`` may follow the main ``line`` (oldest first); it would be card
        number ``len(line) + 1``."""
        recent = line[max(0, len(line) - self.lookback) :] if self.lookback else ()
        return self.accepts_at(recent, card, len(line) + 1)

    def accepts_at(self, recent: Sequence[Card], card: Card, position: int) -> bool:
        """The same judgement from the end of the line only: ``recent`` holds the last cards
        (at least ``lookback`` of them, or the whole line when it is shorter) and
        ``position`` is the candidate's place in the line (or any number equal to it modulo
        ``period``, when the line is at least ``lookback`` long)."""
        frame = tuple(recent[max(0, len(recent) - self.lookback) :]) if self.lookback else ()
        if len(frame) == self.lookback:
            return self._test((*frame, card), position)
        missing: list[Card | None] = [None] * (self.lookback - len(frame))
        return truth_with_unknowns(self.tree, [*missing, *frame, card], position) is not False


def parse_rule(text: str) -> Rule:
    """Read a rule; raise :class:`RuleSyntaxError` (with a column) when it cannot be read."""
    if len(text) > MAX_LENGTH:
        raise RuleSyntaxError("too_long", MAX_LENGTH + 1, limit=MAX_LENGTH)
    tree = _Parser(text).rule().node
    return Rule(text, tree, lookback_of(tree), period_of(tree), _compile_test(tree))
