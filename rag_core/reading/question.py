"""What the reader asks the cross-encoder: the employee's own words (never the spelling-corrected
retrieval query: "uber" -> "user" and "partes" -> "padres" change the question), with common
chat abbreviations written out, and each question clause on its own.

ms-marco was trained on short search queries. Measured on corpus/chat-dev.jsonl (a tuning set):
"whats the OOP max on the PPO?" scores the answering row at -1.4, "...out-of-pocket maximum..."
at 6.7; a situation told around the question ("...trying to figure out worst case for my knee
surgery") pulls every score down, while the question clause alone reads the same rows cleanly.
Chat often tells the situation in the same sentence, before a comma ("my grandma passed away, how
many days off can I take for the funeral?"): the clause after the comma is read alone too
(answering rows of the chat tuning sets rose by 2-8 logits, benchmarks/README.md "Reading,
session 4"). A clause must name at least two topic words: "is that covered?" alone would match
any coverage sentence. Chat punctuates with emoji and "lol" as often as with full stops, and asks
after a condition ("if i buy a 2nd pair the same day is there a discount"): both are clauses too
(session 5: answered chat rows of the eight chat tuning sets 77 -> 89 of 138, correct 72 -> 83;
benchmarks/README.md "Reading, session 5"). A clause read alone can lose what the situation named
("doc says try acupuncture. how many sessions do i get a yr?"): ``situation_words`` are given back
to each sentence that shares them (``reader.read_logits``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from rag_core.text import CALENDAR_YEAR, topic_terms

# Abbreviations employees type that the documents spell out. Only unambiguous, domain-standard
# ones; plan names the documents themselves abbreviate (PPO, HDHP, HSA, FSA, EAP) stay as typed.
CHAT_ABBREVIATIONS: Mapping[str, str] = {
    "oop": "out-of-pocket",
    "max": "maximum",
    "min": "minimum",
    "pto": "paid time off (vacation)",
    "er": "emergency room",
    "pcp": "primary care physician",
    "rx": "prescription",
    "meds": "medications",
    "oon": "out-of-network",
    "yr": "year",
    "yrs": "years",
    "wk": "week",
    "wks": "weeks",
    "hr": "hour",
    "hrs": "hours",
    "mo": "month",
    "mos": "months",
    "thru": "through",
    "w/": "with",
    "w/o": "without",
    "appt": "appointment",
    "appts": "appointments",
    "eval": "evaluation",
    "evals": "evaluations",
    "perf": "performance",
    "mgr": "manager",
    "mgmt": "management",
    "dept": "department",
    "info": "information",
    "abt": "about",
    "bc": "because",
    "b/c": "because",
    "wfh": "work from home",
    "ppl": "people",
    "bday": "birthday",
    "dr": "doctor",
    # Added in session 30 from the chat sets' undocumented words ("whats the admin fee", "the customer service
    # rep job"); "doc" and "auth" were measured too and left as typed (benchmarks/README.md "Session 30").
    "admin": "administrative",
    "rep": "representative",
    "hq": "headquarters",
    "tho": "though",
    "pls": "please",
    "plz": "please",
    # Abbreviations the documents use too, but that mean something else on the web the reader was
    # trained on ("when does STD start paying"): written out, the abbreviation kept beside them.
    "std": "short-term disability (STD)",
    "ltd": "long-term disability (LTD)",
    "ortho": "orthodontia",
}


# An abbreviation stands alone or between slashes ("hrs/wk"); "w/" and "w/o" end in their own slash.
def abbreviation_pattern(abbreviations: Iterable[str]) -> re.Pattern[str]:
    """One pattern for ``abbreviations`` as whole words, the longest first ("w/o" before "w/")."""
    alternatives = "|".join(re.escape(k) for k in sorted(abbreviations, key=len, reverse=True))
    return re.compile(r"(?<![\w])(" + alternatives + r")(?![\w])", re.IGNORECASE)


_ABBREVIATION = abbreviation_pattern(CHAT_ABBREVIATIONS)

# The coverage tier employees name for themselves: premium and HSA tables say "Employee only",
# deductible and out-of-pocket tables "individual". Read as typed, "how much is enhanced dental per
# paycheck if its just me?" quoted the other three tiers' rows (h53-68, h55-18: the reader does not read
# "just me" as "Employee only"). The reader only: written out for retrieval too (session 22), "individual"
# pulled the deductible tables into the context over the premium table ("keystone per paycheck cost for
# just me?" then quoted the other tiers). Not after "is it" or "not": "is it just me or is the ER copay
# crazy?" and "not just me, my kids too" name no tier (benchmarks/README.md "Session 23").
SELF_ONLY_TIER_PHRASES = ("just me", "just myself", "just for me", "only me")
SELF_ONLY_TIER_WORDS = "employee only, individual"
_SELF_ONLY_TIER = abbreviation_pattern(SELF_ONLY_TIER_PHRASES)
_NAMES_NO_TIER = re.compile(r"\b(?:is\s+it|not)\s+$", re.IGNORECASE)
# "hr" is hours only after a number ("25 hr"); otherwise it is the department ("contact HR"). "hrs" is
# never the department.
_NEEDS_NUMBER = frozenset({"hr"})
# "Contoso Ltd." is a company: the disability plans are typed "LTD" or "ltd", never "Ltd".
_NOT_TITLE_CASE = frozenset({"ltd", "std"})
# Chat punctuates with emoji and interjections instead of full stops ("broke my wrist lol 🤦 if i go
# to the ER what's my copay"): both end a clause, as a full stop would. Emoji: the pictographic
# blocks, dingbats and the variation selector / joiner that build composite emoji.
_EMOJI = "\u2600-\u27bf\u2b00-\u2bff\ufe0f\u200d\U0001f000-\U0001faff"
_INTERJECTION = r"lol|lmao|rofl|haha+|ugh+|omg|smh"
# Typed (ASCII) emoticons end a clause as emoji do ("my grandma passed away last night :( how many
# bereavement days do i get?"): a face of eyes, an optional nose and a mouth, or a heart, standing
# alone between spaces (never "https://" or "8:30").
_EMOTICON = r"[:;=][-'^]?[()\[\]/\\|DPpOo3]{1,3}|[xX]D|<3+|T_T"
_CLAUSE_END = re.compile(
    r"(?<=[?!.,;])\s+|\s+[-—–]+\s+"
    rf"|\s*[{_EMOJI}]+\s*"
    rf"|(?:^|\s+)(?:{_EMOTICON})(?=\s|$)\s*"
    rf"|(?<![\w'])(?:{_INTERJECTION})(?![\w'])[\s,.!]*",
    re.IGNORECASE,
)
MIN_CLAUSE_TOPIC_WORDS = 2
_WORD = re.compile(r"[\w'’-]+")
_QUESTION_START = re.compile(
    r"^(what|whats|what's|how|when|where|who|which|why|can|could|do|does|did|is|are|was|will|would|should|"
    r"may|am|any|qu[eé]|c[oó]mo|cu[aá]nt[oa]s?|cu[aá]ndo|d[oó]nde|puedo|tengo|hay)\b(?!')|^¿",
    re.IGNORECASE,
)


# "id" and "ive" typed for "I'd" and "I've" ("whats the most id have to pay out of pocket"): the reader
# reads "id" as an ID card, and "…the most id have to pay out of pocket in a year?" read the Plus plan's
# out-of-pocket maximum at 3.1 against 7.7 with "I'd". Only lowercase and before a lowercase word that is
# not what an ID is ("rx id cards", "member id number"); "ill" stays as typed ("terminally ill").
_MISSING_APOSTROPHE = re.compile(r"\b(id|ive)(?=\s+(?!(?:cards?|numbers?|badges?)\b)[a-z])")
_WITH_APOSTROPHE = {"id": "I'd", "ive": "I've"}


def expand_abbreviations(text: str) -> str:
    """Write out the chat abbreviations of ``text`` ("OOP max" -> "out-of-pocket maximum") and the
    contractions typed without their apostrophe ("id have" -> "I'd have")."""

    def expand(match: re.Match[str]) -> str:
        word = match.group(0).lower()
        if word in _NEEDS_NUMBER and not re.search(r"\d\s*$", text[: match.start()]):
            return match.group(0)
        if word in _NOT_TITLE_CASE and match.group(0).istitle():
            return match.group(0)
        return CHAT_ABBREVIATIONS[word]

    expanded = _ABBREVIATION.sub(expand, text)
    return _MISSING_APOSTROPHE.sub(lambda match: _WITH_APOSTROPHE[match.group(1)], expanded)


def with_tier_words(text: str) -> str:
    """``text`` with the self-only coverage tier it names written out beside its words ("if its just
    me" -> "if its just me (employee only, individual)"); "is it just me or…" and "not just me" as typed."""

    def tier(match: re.Match[str]) -> str:
        if _NAMES_NO_TIER.search(text[: match.start()]):
            return match.group(0)
        return f"{match.group(0)} ({SELF_ONLY_TIER_WORDS})"

    return _SELF_ONLY_TIER.sub(tier, text)


# A question asked after a condition or a conjunction ("if i buy a 2nd pair the same day is there a
# discount", "and how long do i have to apply"): the asking words come later in the clause.
_ASKING_INSIDE = re.compile(
    r"\b(is there|are there|what|whats|what's|which|how (much|many|long|often|do|does|can|soon)|"
    r"can i|can we|do i|do we|does (it|the|my|our|that|this)|will i|am i)\b",
    re.IGNORECASE,
)
_LEADS_INTO_QUESTION = re.compile(r"^(if|and|but|so|also|btw|then|when)\b", re.IGNORECASE)


def is_question(clause: str) -> bool:
    text = clause.strip().lstrip("¿")
    if clause.rstrip().endswith("?") or _QUESTION_START.match(text):
        return True
    return bool(_LEADS_INTO_QUESTION.match(text) and _ASKING_INSIDE.search(text))


def reader_queries(question: str, max_clauses: int = 2) -> list[str]:
    """The whole question, then each question clause of it when there are several clauses
    ("whats the OOP max on the PPO? trying to figure out worst case for my knee surgery" ->
    the whole, and "whats the out-of-pocket maximum on the PPO?"). A clause that only tells
    the situation ("we just got married") is never read alone: it is context, not a question."""
    whole = whole_question(question)
    parts = _parts(question)
    if len(parts) < 2:
        return [whole]
    asked = [a for a in dict.fromkeys(without_courtesy(p) for p in parts if _asks_alone(p)) if a != whole]
    if len(asked) >= 2:
        # A question in parts ("How does X affect costs, and what are the exceptions?"): the parts
        # cover it, and reading the whole as well would cost a third of the reader's time for the
        # slowest questions (benchmarks/README.md, "Reading, session 4").
        return asked[:max_clauses]
    return [whole, *asked[:max_clauses]]


def _clauses(whole: str) -> list[str]:
    return [p.strip(" ,;") for p in _CLAUSE_END.split(whole) if p.strip(" ,;")]


def _asks_alone(clause: str) -> bool:
    return is_question(clause) and len(clause.split()) >= 3 and len(set(topic_terms(clause))) >= MIN_CLAUSE_TOPIC_WORDS


# A calendar year the question puts on the whole question ("for the 2026 plan year", "in 2026",
# "during 2027"), with the words that attach it: not a year that names the thing asked about ("my
# 2026 FSA receipts", "rolls over into 2027"), which the reader needs ("Reading, session 8").
_YEAR_PUT_ON_QUESTION = re.compile(
    rf"\b(?:for|in|during)\s+(?:the\s+)?{CALENDAR_YEAR}(?:\s+(?:plan|calendar|tax)\s+year\b)?",
    re.IGNORECASE,
)


# A polite request around the question ("Could you please tell me how much…", "…, could you confirm
# which position…"): not what is asked, and it drags the reader's logits down (h29-01: the answering
# row read 1.93 with it, 4.21 without). Only the requesting words go; what follows is the question.
_COURTESY = re.compile(
    r"(?:(?<=^)|(?<=[.?!,;:] ))"
    r"(?:(?:could|can|would|will) you (?:please |kindly )?"
    r"(?:tell me|let me know|confirm|advise|verify|check)(?: for me)?"
    r"|please (?:tell me|let me know|confirm|advise)"
    r"|i(?:'d| would) (?:like to know|like to confirm|appreciate it if you could tell me)"
    r"|i (?:was wondering|wonder)"
    r"|(?:do you know|may i ask|can i ask)"
    r")(?: whether| if)?\s+",
    re.IGNORECASE,
)


def without_courtesy(text: str) -> str:
    """``text`` without the polite request around its question; the question's first letter
    upper-cased when the request opened the text."""
    stripped = _COURTESY.sub("", text)
    if stripped != text and stripped[:1].islower() and not _COURTESY.match(stripped) and text[:1].isupper():
        stripped = stripped[:1].upper() + stripped[1:]
    return stripped


def _one_line(question: str) -> str:
    """The question on one line, abbreviations and the self-only tier (``with_tier_words``) written out,
    a calendar year put on the whole question left out. The documents are this year's, and such a year made
    their boilerplate read as the answer: "…deductible under the PPO Plan for the 2026 plan year?" read
    the summary's "…offers … for the 2026 plan year: the Fabrikam PPO Plan and…" at 4.65 and the
    deductible row at 0.67. Whether the answer speaks for the asked year is the answer-type gate's
    check (``answer_type.names_another_year``), on the question as typed. Session 8: on 46 sets
    formal right answers 409 -> 413 and wrong 69 -> 65, nothing lost; on holdout-chat-25, written
    after it, one more right answer and one more near miss refused."""
    text = " ".join(question.split())
    if _YEAR_PUT_ON_QUESTION.search(text):
        text = re.sub(r" (?=[?.!,;:])", "", " ".join(_YEAR_PUT_ON_QUESTION.sub(" ", text).split()))
    return with_tier_words(expand_abbreviations(text))


def whole_question(question: str) -> str:
    """The question as the reader reads it whole (``_one_line``), without the polite request around
    it (``without_courtesy``)."""
    return without_courtesy(_one_line(question))


def _parts(question: str) -> list[str]:
    """The question's clauses as typed: a polite request still opens its clause, so "could you confirm
    whether drugs have a separate deductible" is known for a question before the request goes."""
    return _clauses(_one_line(question))


def situation_words(question: str) -> list[str]:
    """The topic words of the parts of a question never read alone (the situation told around it:
    "doc says try acupuncture" -> ["acupuncture"]), lower-cased, in order, once each."""
    parts = _parts(question)
    if len(parts) < 2:
        return []
    words = (w.lower() for p in parts if not _asks_alone(p) for w in _WORD.findall(p))
    return list(dict.fromkeys(w for w in words if topic_terms(w)))


# A question clause that points back at what the situation before it named ("thinking of switching to the
# hdhp next year lol, whats the individual deductible on that one?"): read alone, "that one" names nothing.
# The deductible row read 3.0 for "…on that one?" and 5.1 for "…on the hdhp?" (benefits-v5), and the question
# abstained (h67-02; benchmarks/README.md "Session 30"). Not "is that one of the states…".
_POINTS_BACK = re.compile(
    r"\b(?:that|this|the same)\s+(one|plan|option|program|policy|benefit|coverage)\b(?!\s+of\b)", re.IGNORECASE
)
# Words of the situation that date it ("switching … next year") rather than name what it is about.
_WHEN_WORDS = frozenset("year years month months week weeks day days next last today tomorrow".split())


def points_back(clause: str) -> bool:
    """Does ``clause`` refer to something only the situation names ("…on that one?", "…under that plan?")?"""
    return _POINTS_BACK.search(clause) is not None


def referent_words(question: str) -> list[str]:
    """What a pointing clause may refer to: the situation's words (``situation_words``) without its dates."""
    return [w for w in situation_words(question) if w not in _WHEN_WORDS]


def with_referent(clause: str, referent: Iterable[str]) -> str:
    """``clause`` with its pointing phrase put as the ``referent`` words: "…on that one?" with ["hdhp"] ->
    "…on the hdhp?", "…on that plan?" with ["northwind", "standard"] -> "…on the northwind standard plan?"."""
    named = " ".join(referent)
    if not named:
        return clause

    def put(match: re.Match[str]) -> str:
        noun = match.group(1).lower()
        return f"the {named}" if noun == "one" else f"the {named} {match.group(1)}"

    return _POINTS_BACK.sub(put, clause, count=1)


def asking_clauses(question: str) -> list[str]:
    """The parts of a question read as questions on their own (``reader_queries`` without the whole);
    empty when the question is read only whole."""
    whole = whole_question(question)
    return [q for q in reader_queries(question) if q != whole]


def asked_terms(question: str) -> frozenset[str] | None:
    """The topic terms of the parts of a question that are read as questions (``reader_queries``),
    or None when the question is read only whole. A word outside them was told as situation
    ("my back has been killing me since the move lol, … how many acupuncture visits?")."""
    asked = asking_clauses(question)
    if not asked:
        return None
    return frozenset(t for q in asked for t in topic_terms(q))
