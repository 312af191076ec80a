"""Age rules: an answer about a person whose age the question tells shows the age rule of the
section it quotes.

"my 10 yr old failed her school hearing test, can i use the northwind health plus hearing aid
coverage for her?" reads "…covers up to $1,500 every 3 years for all hearing aid services…" best;
the same section of the same booklet says "hearing care coverage is limited to individuals 18
years of age or older." Quoted without it, the answer tells a parent the child is covered. So when
the question gives someone's age, the sentences of the best-read sentence's section that state an
age rule ("…under the age of 21", "…up to age 26", "…age 55 or older") are quoted too, each with its
citation, and the employee reads the rule next to the figure. (For the extractive default; a model
that writes the answer is given the whole section.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag_core.reading.spans import Span, spans_of
from rag_core.types import Candidate

# A number followed by a unit is a duration or a distance, not an age ("he's 5 weeks early", "im 40 minutes away").
_UNIT_AFTER = (
    r"(?!\s*(?:weeks?|wks?|months?|mos?|days?|hours?|hrs?|minutes?|mins?|miles?|km\b|%|percent|times|x\b|"
    r"am\b|pm\b|a\.m|p\.m))"
)
_PERSON = (
    r"(?:daughter|son|kid|child|baby|teen|wife|husband|spouse|partner|dad|mom|father|mother|stepson|"
    r"stepdaughter|grandson|granddaughter|dependent|he|she|they)"
)
_SMALL = r"(?:\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
# Someone's age in a question: "my 15 yo", "my 10 yr old", "a 42-year-old employee", "(he's 22)",
# "my son is 19", "my daughter (22)", "she just turned 14", "I'm 57", "at age 70", "two months old",
# "born 5 days ago".
ASKED_AGE = re.compile(
    r"\b\d{1,2}\s*-?\s*(?:yo|y/o|y\.o\.|yrs?\s*-?\s*old|years?\s*-?\s*old)\b"
    rf"|\b{_PERSON}(?:'s|’s|\s+is|\s+are|\s+was)\s+(?:now\s+|only\s+|just\s+)?\d{{1,2}}\b{_UNIT_AFTER}"
    rf"|\b{_PERSON}\s*\(\s*(?:age\s*)?\d{{1,2}}\s*\)"
    rf"|\b(?:i'm|i’m|im|i\s+am)\s+(?:now\s+)?\d{{2}}\b{_UNIT_AFTER}"
    rf"|\b(?:turn|turned|turns|turning)\s+\d{{1,2}}\b{_UNIT_AFTER}"
    r"|\bage[d]?\s+\d{1,2}\b"
    rf"|\b{_SMALL}\s*-?\s*(?:days?|wks?|weeks?|months?|mos?)\s*-?\s*old\b"
    rf"|\bborn\s+(?:about\s+|like\s+)?{_SMALL}\s*(?:days?|wks?|weeks?|months?|mos?)\s+ago\b",
    re.IGNORECASE,
)
# An age rule in a document: "under the age of 21", "up to age 26", "18 years of age or older",
# "age 55 or older", "at age 70", "ages 2 to 19", "up to 30 days old".
AGE_RULE = re.compile(
    r"\b(?:under|over|through|until|up\s+to|to|at|before|after|at\s+least|younger\s+than|older\s+than)\s+"
    r"(?:the\s+)?age\s+(?:of\s+)?\d{1,2}"
    r"|\bage\s+\d{1,2}\s+(?:and|or)\s+(?:older|over|under|younger)"
    r"|\b\d{1,2}\s+years\s+of\s+age"
    r"|\bages?\s+\d{1,2}\s*(?:to|-|–|through)\s*\d{1,2}"
    r"|\b\d{1,2}\s+(?:days|months)\s+old\b",
    re.IGNORECASE,
)
MAX_AGE_RULES = 2


def tells_an_age(question: str) -> bool:
    return ASKED_AGE.search(question) is not None


def age_rules(question: str, answer: Sequence[Span], context: Sequence[Candidate]) -> list[Span]:
    """The context's sentences that state an age rule in the section of ``answer[0]`` (the best-read
    sentence: same document, same heading) and are not in ``answer``; none when the question tells
    no one's age."""
    if not answer or not tells_an_age(question):
        return []
    best = answer[0]
    quoted = {span.text for span in answer}
    rules = [
        span
        for span in spans_of(context)
        if span.chunk.document_id == best.chunk.document_id
        and span.heading == best.heading
        and span.text not in quoted
        and AGE_RULE.search(span.text)
    ]
    return rules[:MAX_AGE_RULES]
