"""Does what the reader would show state the kind of thing the question asks for?

A question that asks for a quantity ("how many days", "what is the copay", "how much", "within how
many days", "what age") is not answered by sentences that state none: "Copays for Northwind
Standard vary depending on the type of service you receive" reads as on-topic for "what is the
daily copayment for a skilled nursing facility?" (the cross-encoder scores related text as highly
as an answer), but it names no amount, so the documents do not say. A check of the answer's type,
not a picker: the reader still chooses the sentences.

Measured (benchmarks/README.md "Reading, session 5"): of the rows the pipeline answered on the 16
sets seen by then, it stops 3 of the 12 answered must-abstain rows and 4 of 53 wrong answers, and none
of 294 right answers (its patterns were written and refined on those sets); checked once on
corpus/holdout-chat-9.jsonl and benchmarks/contoso_holdout_5.jsonl, written afterwards. Session 6:
the gate (``pipeline.read.AnswerTypeGate``) counts only sentences that themselves read as an answer,
and "free" no longer states a date or a count: on the 25 sets seen by then, answered near misses
31 -> 18 for 2 right answers of 415; on the six sealed sets written afterwards, near-miss recall of
holdout-chat-15 0.60 -> 0.90 and nothing else changed ("Reading, session 6").

A question that names the kind of amount it asks for (a premium, a deductible, a copay, coinsurance)
is answered only by a sentence that names that kind too (``lacks_asked_kind``): these are terms of
art, and a figure of another kind is another fact. "What is the monthly premium per $10,000 of spouse
life coverage?" read the coverage row ("Benefit: $10,000 increments up to $250,000; Who pays:
Employee") as an answer. What plan summaries title their premium tables names a premium too
("Employee Contributions", "Per paycheck"). Session 8: on the 40 sets seen by then it stops 6
answered near misses and changes nothing else; on Contoso held-out 19, written after it, 2 more
and nothing else (benchmarks/README.md "Reading, session 8").

A question that names a year ("when is open enrollment for the 2027 plan year?") is not answered by
sentences about another year ("Open enrollment for the 2026 plan year ran from November 3 through
November 21, 2025.") or from a summary of another plan year: ``names_another_year``. In November
employees ask about next year's plans while the documents still describe this year's; quoting this
year's dates or amounts as next year's is the wrong answer that reads best. Session 8: on the 40
sets it stops 1 answered near miss and changes nothing else; on holdout-chat-23, written after it,
2 more ("…in the 2027 plan year?") and nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rag_core.links import EMAIL_ADDRESS
from rag_core.text import CALENDAR_YEAR, terms

# What asks for a quantity: an amount, a count, a duration, a rate, a date or an age. A quantity noun
# after "what" with up to three modifiers asks for its figure ("what is the (monthly account) fee",
# "what per-mile rate", "what is its monthly cost"), never "what is the process for ensuring
# cost-effective care" (a preposition or verb ends the modifiers).
_QUANTITY_NOUNS = (
    r"amount|cost|price|fee|rate|copay|copayment|coinsurance|deductible|limit|maximum|max|minimum|"
    r"percentage|percent|premium"
)
_NOT_A_MODIFIER = r"for|of|to|in|on|at|by|with|under|and|or|is|are|does|do|did|will|would|can|should"
_ASKS_QUANTITY = re.compile(
    r"\b(how much|how many|what amount|what percentage|what percent|how long|how soon|how far|how often|"
    r"what age|how old|what date|which date|by when|what time|what multiple|within how many|dollar|"
    r"(?:what|which) (?:day|month|year)|exact date|"
    r"what(?:(?:'s|s| is| are| was)? (?:the|its|their|my|our))? "
    rf"(?:(?!(?:{_NOT_A_MODIFIER})\b)[\w-]+ ){{0,3}}?(?:{_QUANTITY_NOUNS})s?(?![\w-]))|\$\s?amount",
    re.IGNORECASE,
)
# What states one: a figure or a number written out (for an amount, also "free" / "no cost", below).
_STATES_QUANTITY = re.compile(
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|sixty|"
    r"ninety|hundred|once|twice|immediately|same day)\b",
    re.IGNORECASE,
)
# "Free" / "no cost" / "none" state an amount, not a date, a time, a count or an age: "when are the
# flu shot clinics, what date?" is not answered by "free flu shots at on-site clinics each fall".
_STATES_NO_COST = re.compile(r"\b(no cost|free|none)\b", re.IGNORECASE)
_ASKS_NOT_AN_AMOUNT = re.compile(
    r"\b(what date|which date|by when|what time|(?:what|which) (?:day|month|year)|exact date|how often|how many|"
    r"how long|how soon|what age|how old)\b",
    re.IGNORECASE,
)
_NAMES_MONEY = re.compile(
    r"\$|\b(cost|costs|price|fee|fees|pay|paid|charge|dollars?|premium|copay|amount)\b", re.IGNORECASE
)
# "How often": a frequency written as a word states it too ("reviews are held annually"). Only then:
# "what is the monthly fee?" is not answered by "a monthly fee may apply".
_ASKS_FREQUENCY = re.compile(r"\bhow often\b", re.IGNORECASE)
_FREQUENCY = re.compile(r"\b(annually|monthly|weekly|daily|yearly|quarterly|every)\b", re.IGNORECASE)


# A question that asks for a phone or fax number, or an e-mail address, is answered only by a sentence
# that gives one: "Our doctor's office needs Proseware's fax number…" read the renewal sentence ("ask
# your doctor to submit a renewal to Proseware…") as an answer; it names no number.
_ASKS_NUMBER = re.compile(
    r"\b(?:phone|fax|telephone|toll[- ]free|contact)\s*(?:number|no\.|#)"
    r"|\b(?:what|which)\s+number\b"
    r"|\bnumber\s+(?:to|should\s+i|do\s+i|can\s+i|i\s+should|i\s+can)\s+(?:call|dial|fax|text)\b"
    r"|\bthe\s+#(?!\s*\d)",
    re.IGNORECASE,
)
_STATES_NUMBER = re.compile(r"\b\d{3}[-.\s]\d{4}\b")
# A fax number asked for, and no phone: only a number the text gives as a fax answers ("By fax:
# 123-456-7890"). "What fax number should I send it to?" was answered with the Leave Center's phone line
# (benchmarks/README.md "Session 34").
_ASKS_FAX = re.compile(r"\bfax\s*(?:number|no\.|#)|\bnumber\s+(?:should\s+i|do\s+i|can\s+i|to)\s+fax\b", re.IGNORECASE)
_ASKS_PHONE = re.compile(r"\b(?:phone|telephone|call|toll[- ]free)\b", re.IGNORECASE)
_STATES_FAX = re.compile(
    r"\bfax\b[^.\n]{0,40}?\b\d{3}[-.\s]\d{4}\b|\b\d{3}[-.\s]\d{4}\b[^.\n]{0,20}?\bfax\b", re.IGNORECASE
)
_ASKS_EMAIL = re.compile(r"\be-?mail\s+address(?:es)?\b|\b(?:what|which)\s+e-?mail\b", re.IGNORECASE)


def lacks_asked_contact(question: str, sentences: Iterable[str]) -> bool:
    """The question asks for a phone / fax number or an e-mail address and none of ``sentences``
    gives what it asks for (either, when it asks for both; a fax number alone: one given as a fax)."""
    only_fax = _ASKS_FAX.search(question) is not None and _ASKS_PHONE.search(question) is None
    number = _STATES_FAX if only_fax else _STATES_NUMBER
    wanted = [
        states for asks, states in ((_ASKS_NUMBER, number), (_ASKS_EMAIL, EMAIL_ADDRESS)) if asks.search(question)
    ]
    if not wanted:
        return False
    texts = list(sentences)
    return not any(states.search(text) for states in wanted for text in texts)


# Kinds of amount with a name of their own: what names the kind in a question, and in a sentence.
_AMOUNT_KINDS: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (re.compile(asked, re.IGNORECASE), re.compile(named, re.IGNORECASE))
    for asked, named in (
        # Plan summaries put premiums in tables headed "Employee Contributions" / "Per paycheck".
        (r"\bpremiums?\b", r"\bpremiums?\b|\bcontributions?\b|\bper[ -](?:paycheck|pay period)\b"),
        (r"\bdeductibles?\b", r"\bdeductibles?\b"),
        # A drug tier's flat dollar amount is its copay, named or not: Tailspin's table gives "Drug tier: Tier
        # 2: Preferred brand; Keystone: 30-day retail: $40; Keystone: 90-day mail: $100; …" under its
        # columns' headings, and eleven rows asking "the copay for a 90-day mail-order supply of a Tier 2
        # preferred brand drug" abstained on it (benchmarks/README.md "Session 33").
        (r"\bco-?pay(?:ment)?s?\b", r"\bco-?pay(?:ment)?s?\b|\btier\s*\d\b.*?\$\s?\d"),
        (r"\bco-?insurance\b", r"\bco-?insurance\b"),
    )
)


# A pay range asked for ("What is the salary range for the Sales Representative position?", "whats the
# salary band for…") is answered only by a sentence that gives pay as a dollar figure: a job posting's
# header, its duties, or "Salary: Competitive, commensurate with experience" name the role, not its pay.
_ASKS_PAY_RANGE = re.compile(r"\b(?:salary|pay|wage|compensation)\s+(?:range|band|scale|bracket)s?\b", re.IGNORECASE)
_NAMES_PAY = re.compile(r"\b(?:salar(?:y|ies)|pay|wages?|compensation)\b", re.IGNORECASE)
_DOLLARS = re.compile(r"\$\s?\d")


def lacks_asked_pay(question: str, sentences: Iterable[str]) -> bool:
    """The question asks for a salary (pay) range and none of ``sentences`` gives pay in dollars."""
    if not _ASKS_PAY_RANGE.search(question):
        return False
    return not any(_NAMES_PAY.search(text) and _DOLLARS.search(text) for text in sentences)


def asks_quantity(question: str) -> bool:
    return bool(_ASKS_QUANTITY.search(question))


def lacks_asked_quantity(question: str, sentences: Iterable[str]) -> bool:
    """The question asks for a quantity and none of ``sentences`` states one."""
    if not asks_quantity(question):
        return False
    frequency = bool(_ASKS_FREQUENCY.search(question))
    amount = not _ASKS_NOT_AN_AMOUNT.search(question) or bool(_NAMES_MONEY.search(question))
    return not any(
        _STATES_QUANTITY.search(s) or (frequency and _FREQUENCY.search(s)) or (amount and _STATES_NO_COST.search(s))
        for s in sentences
    )


# A kind named as what the asked amount is added to ("what administrative fee is added to the premium?",
# "is there some extra fee on top of the premium?") is the reference point, not the kind asked for: the
# COBRA sentence ("…by paying the full cost plus a 2% administrative fee") answers without naming a premium
# (benchmarks/README.md "Session 33").
_ADDED_TO_KIND = re.compile(
    r"\b(?:to|on top of|in addition to|over and above|besides)\s+(?:the\s+|my\s+|your\s+|our\s+)?"
    r"(?:monthly\s+)?(?:premiums?|deductibles?|co-?pay(?:ment)?s?|co-?insurance)\b",
    re.IGNORECASE,
)


def lacks_asked_kind(question: str, sentences: Iterable[str]) -> bool:
    """The question asks for a quantity of a named kind ("what is the monthly premium") and none of
    ``sentences`` names that kind (any one of them, when the question names several). A kind the asked
    amount is added to ("…on top of the premium") is not asked for."""
    if not asks_quantity(question):
        return False
    asking = _ADDED_TO_KIND.sub(" ", question)
    named = [kind for asked, kind in _AMOUNT_KINDS if asked.search(asking)]
    if not named:
        return False
    texts = list(sentences)
    return not any(kind.search(text) for kind in named for text in texts)


# A benefit paid toward a named purpose ("a monthly internet stipend", "the wellness stipend", "a transit
# subsidy") is that purpose's: a question naming another purpose ("is there a monthly phone stipend?", "a
# coworking stipend") is not answered by it, nor is "pet insurance" by the life insurance. The list of
# remote-work perks read 2-9 for such questions and was quoted as if it answered them (benchmarks/README.md
# "Session 34"). Only these purpose-named kinds:
# "medical coverage", "bonding leave" or "therapy sessions" name the same thing as "COBRA coverage",
# "parental leave" or "counseling sessions" (measured, ibid.).
_PURPOSE_KINDS = r"stipends?|allowances?|subsid(?:y|ies)|reimbursements?|memberships?|discounts?|credits?|insurance"
# The word before the kind, and the one before it ("bicycle commuter reimbursement").
_PURPOSE_NAMED = re.compile(rf"\b(?:([a-z][\w-]*)\s+)?([a-z][\w-]*)\s+(?:{_PURPOSE_KINDS})\b", re.IGNORECASE)
# Words before such a kind that say how often, how much or whose, not what for.
_NOT_A_PURPOSE = frozenset(
    "monthly annual yearly weekly daily quarterly one-time onetime per extra additional total maximum max "
    "minimum min full partial free new same separate current standard basic any some much many what which "
    "whose each every other another employee employees company fabrikam contoso tailspin "
    # what it is like, or whose it is ("my wifes insurance", "great insurance")
    "good great better best cheap cheaper expensive decent bad own group voluntary optional supplemental "
    "wifes husbands spouses partners parents moms dads".split()
)


def _purposes(text: str) -> set[str]:
    """The purposes ``text`` names before a purpose-named kind ("internet" in "a monthly internet stipend")."""
    return {word for word, _ in _named_purposes(text)}


def _named_purposes(text: str) -> list[tuple[str, str]]:
    """(purpose, the word before it) for each purpose-named kind ``text`` names."""
    found = []
    for match in _PURPOSE_NAMED.finditer(text):
        before, word = (match.group(1) or "").lower(), match.group(2).lower()
        if _is_purpose(word):
            found.append((word, before if _is_purpose(before) else ""))
    return found


def _is_purpose(word: str) -> bool:
    return len(word) >= 3 and word not in _NOT_A_PURPOSE and bool(terms(word))


def names_another_purpose(question: str, sentences: Iterable[str]) -> bool:
    """The question asks about a benefit named for a purpose ("a monthly phone stipend") and the
    ``sentences`` name a benefit of that kind for another purpose ("a monthly internet stipend") without
    naming the asked one anywhere (its plural too: "phone", "phones"). A purpose the question names one word
    earlier is the asked one too ("the bicycle commuter reimbursement" is answered by "a bicycle
    reimbursement")."""
    named = _named_purposes(question)
    if not named:
        return False
    asked = {word for word, _ in named}
    also = {before for _, before in named if before}
    texts = list(sentences)
    # Each part of a compound counts ("opt out credit" / "An opt-out credit"), and a plural is its
    # singular (the stemmer of ``terms`` cuts "frames" to "fram" and leaves "frame").
    said = {_singular(part) for text in texts for word in _WORDS.findall(text.lower()) for part in word.split("-")}
    missing = {word for word in asked if _singular(word) not in said}
    return bool(missing) and any(_purposes(text) - asked - also for text in texts)


_WORDS = re.compile(r"[a-z][\w'’-]*")


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


# A maximum the plan pays or allows ("the annual benefit maximum for dental", "the yearly $ cap on
# spinal manipulation", "the annual allowance for contact lenses") is not one of what the member
# pays: the out-of-pocket maximum, the deductible, a copay, coinsurance, a premium. Plan summaries
# state those in sentences that read as an answer to any "annual maximum" question ("Northwind Health
# Plus has an out-of-pocket maximum of $4,000 per year." read 4-6 for five such questions the
# documents do not answer; with it out of the way, "…has a deductible of $2,000 per year." did).
_ASKS_MAXIMUM = re.compile(r"\b(max|maximum|maximums|cap|caps|allowance|limit|limits)\b", re.IGNORECASE)
# What the member pays: the out-of-pocket maximum and the named kinds of amount above.
_MEMBER_COSTS = (
    re.compile(r"\bout[- ]of[- ]pocket\b|\boop\b", re.IGNORECASE),
    *(asked for asked, _named in _AMOUNT_KINDS),
)
# "…the most I'd pay", "is there a cap on what we spend", "worst case", "besides the allowance is there
# a separate charge": what the employee pays. So is "the maximum a member pays" and a cap "per fill" (a
# prescription's cost share: "im on trailhead and my specialty med is expensive af. is there a cap per
# fill?" lost the "Tier 4: Specialty … up to $350 per fill" row, 3.3, as a member cost; benchmarks/README.md
# "Session 33").
_ASKS_WHAT_YOU_PAY = re.compile(
    r"\b(i|i'd|i'll|me|we|we'd|us)\b[^?!.]{0,40}?\b(pay|paying|spend|spending|owe)\b|\bworst[- ]case\b"
    r"|\b(you|member|members)\b[^?!.]{0,40}?\b(pay|pays|paying|owe|owes)\b"
    r"|\b(charge|charges|charged|cost|costs|fee|fees|price)\b|\bper[- ]fill\b",
    re.IGNORECASE,
)


def asks_another_maximum(question: str) -> bool:
    """Does the question ask for a maximum, cap, limit or allowance the plan pays or allows, not one
    of what the member pays (it names none of them and does not ask what "I" would pay)?"""
    return bool(
        _ASKS_MAXIMUM.search(question)
        and not any(kind.search(question) for kind in _MEMBER_COSTS)
        and not _ASKS_WHAT_YOU_PAY.search(question)
    )


def names_member_cost(text: str) -> bool:
    """Does ``text`` name one of what the member pays (out-of-pocket maximum, deductible, copay,
    coinsurance, premium)?"""
    return any(kind.search(text) for kind in _MEMBER_COSTS)


# A limit stated as a count of something, not money: "(limit 20 visits per year)", "up to 12 sessions".
_COUNT_LIMIT = re.compile(
    r"\b(?:limit(?:ed)?|max(?:imum)?|cap(?:ped)?|up to)\s+(?:of\s+|to\s+|at\s+)?\d+\s+"
    r"(?:visits?|days?|sessions?|treatments?|weeks?|hours?|fills?|exams?|cleanings?|pairs?)\b",
    re.IGNORECASE,
)


def states_count_limit(text: str) -> bool:
    """Does ``text`` state a limit as a count ("limit 20 visits per year")? A table row can give a
    benefit's limit and its copay side by side ("Chiropractic care (limit 20 visits per year); Keystone
    Copay Plan: $35 copay"): it answers "is there a limit on how many chiro visits…" though it names a
    member cost. A money allowance beside a copay ("the $150 frames allowance and the $20 materials
    copay") does not count: such sentences led the frames-allowance answers with an FAQ about sunglasses
    (benchmarks/README.md "Session 33")."""
    return bool(_COUNT_LIMIT.search(text))


_YEAR = re.compile(CALENDAR_YEAR)


# A year of the employee's own history ("i was hired in march 2024", "been here since 2022") is not
# the year asked about: the tenure rules of this year's handbook answer it.
_OWN_HISTORY_YEAR = re.compile(
    r"\b(?:hired|started|start|joined|began|since|born|married|graduated)\b\W+(?:[\w'’]+\W+){0,3}?" + _YEAR.pattern,
    re.IGNORECASE,
)


def asked_years(question: str) -> set[str]:
    """The calendar years a question asks about: those it names, less its own-history years."""
    return set(_YEAR.findall(_OWN_HISTORY_YEAR.sub(" ", question)))


def names_another_year(question: str, sentences: Iterable[tuple[str, str]]) -> bool:
    """The question names a year, no sentence speaks for it, and one speaks for another year.
    ``sentences``: (sentence, its document's title) pairs. A sentence speaks for the years it names;
    one that names none speaks for the year its document's title names ("Fabrikam Medical Plan
    Summary 2026": the specialist copay row is the 2026 copay, not 2025's); one that names only years
    after its title's speaks for the title's too (a 2026 summary's "carries over into 2027" answers
    what happens to 2026's money). Sentences that name no year anywhere (a standing rule: "Open
    enrollment runs each November") still answer; shown next to one about another year, they would
    present that year's facts as the asked year's."""
    asked = asked_years(question)
    if not asked:
        return False
    named = [_years_spoken_for(text, title) for text, title in sentences]
    return not any(years & asked for years in named) and any(named)


def _years_spoken_for(sentence: str, title: str) -> set[str]:
    own, documents = set(_YEAR.findall(sentence)), set(_YEAR.findall(title))
    if not own:
        return documents
    if documents and min(own) > max(documents):
        return own | documents
    return own
