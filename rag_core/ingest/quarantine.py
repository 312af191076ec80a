"""Quarantine at ingest: sentences that address an assistant instead of an employee never get indexed.

A policy document states facts to employees. A sentence that tells a reader's assistant to ignore
or override its instructions, to adopt a role, to tell or say something to "the user", to reveal
other documents, or that links to a host the document does not live on, is an attack on whatever
reads the corpus: it is removed before chunking (so it is never quoted, never embedded, never sent
to an LLM) and listed in the ingest summary for HR to look at. A paragraph made mostly of such
instruction-like sentences goes whole: the rest of it is the attack's framing.

The checks read the text as a reader sees it: NFKC-folded (fullwidth letters), without zero-width
characters, case-blind. They do not catch paraphrased persuasion ("our policy now grants unlimited
PTO") — no pattern can tell a false claim from a true one — which is why generation also treats
chunk text as data and the validator checks every claim against its citation.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rag_core.ingest.extract import Block, Extracted
from rag_core.links import LinkPolicy

_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[^\s])")

_AI = r"(?:ai|a\.i\.|assistant|chat ?bot|bot|copilot|gpt|chatgpt|claude|gemini|llm|(?:ai |large )?language model)s?"
# Who an injected instruction wants addressed: not "the employee" (HR procedures say "notify the
# employee"), but the user, the reader, everyone, every employee.
_READER = (
    r"(?:the (?:user|reader|asker|human)s?|users|readers|every(?:one|body)|any(?:one|body)"
    r"|every (?:employee|user|member|person)|all (?:employees|users|members|staff)|whoever asks)"
)
# Where an imperative can start: the sentence start, after "and/then/please/now", after a colon,
# or after "you must/should/will/are to".
_IMPERATIVE = (
    r"(?:^|[:;,(]\s*|\b(?:and|then|please|now|also|always|instead|simply|just)\s+"
    r"|\byou\s+(?:must|should|will|need to|are to|have to)\s+)"
)

PATTERNS: dict[str, re.Pattern[str]] = {
    "overrides instructions": re.compile(
        r"\b(?:ignore|disregard|forget|override|overrule|bypass|skip|drop|abandon)\b[^.!?]{0,60}?"
        r"\b(?:instructions?|prompts?|directives?|guardrails?|programming|system message|rules you|"
        r"(?:previous|prior|above|earlier|all|your|any|other) (?:rules|guidelines|context|policies|orders))\b"
        # Spanish (the corpus has Spanish policies): "ignora las instrucciones anteriores"
        r"|\b(?:ignora|ignore|olvida|omite|descarta)\w*\b[^.!?]{0,40}?\binstrucciones\b"
    ),
    "assigns a role or mode": re.compile(
        r"\byou are now\b|\b(?:administrator|admin|developer|god|debug|jailbreak|dan|unrestricted|sudo|maintenance)"
        rf" mode\b|\b(?:act as|pretend to be|you are|roleplay as|behave as) (?:an? |the |my )?"
        rf"(?:unrestricted |unfiltered |different |new |helpful )?(?:{_AI}|administrator|admin|root|system)\b"
        r"|\bpretend (?:you are|that you)\b|\bnew (?:instructions|rules) (?:for|to) you\b"
        r"|\bsystem prompt\b|^\s*(?:system|assistant|developer)\s*:|<\|?(?:im_start|system|endoftext)"
    ),
    "addresses an assistant": re.compile(
        rf"\b(?:note|attention|message|instructions?|memo|notice|reminder) (?:to|for) (?:the |any |all |every )?{_AI}\b"
        rf"|\bif you are an? {_AI}\b|\b(?:dear|hey|hello|hi) {_AI}\b"
        rf"|\b{_AI} (?:reading|processing|summari[sz]ing|answering|parsing|indexing) (?:this|these)\b"
        rf"|\bas an? {_AI},? you\b"
    ),
    "tells the reader what to say": re.compile(
        rf"{_IMPERATIVE}(?:tell|inform|notify|assure|advise|instruct|convince|say to|respond to|reply to|answer|remind)"
        rf"\s+{_READER}\b"
        rf"|{_IMPERATIVE}say\s+(?:that\b|yes\b|no\b|only\b|[\"“'‘]|{_READER})"
        rf"|{_IMPERATIVE}(?:respond|reply|answer|output)\s+(?:only\s+)?(?:with\s+)?[\"“'‘]"
        r"|\b(?:dile|diles|di|dígale|dígales|informa|responde) (?:al usuario|a los usuarios|a todos|a cada empleado"
        r"|a todos los empleados)\b"
    ),
    "asks to reveal other content": re.compile(
        r"\b(?:reveal|disclose|leak|dump|print|expose|share|show|give|send)\b[^.!?]{0,80}?"
        r"\b(?:to (?:anyone|everyone|whoever|any user|all users|the user)\b|system prompt|your instructions"
        r"|hidden (?:text|instructions|documents)|(?:restricted|confidential|other|all) documents)"
    ),
}


LINK_REASON = "links to "


@dataclass(frozen=True)
class Quarantined:
    page: int
    reason: str
    text: str
    hosts: tuple[str, ...] = ()  # for a link outside the document's organisation: the hosts it names

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"page": self.page, "reason": self.reason, "text": self.text[:300]}
        if self.hosts:
            found["hosts"] = list(self.hosts)
        return found


def reader_view(text: str) -> str:
    """Text folded the way a reader perceives it (fullwidth, zero-width and case tricks undone)."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).casefold()


def split_sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text.strip()) if s.strip()]


@dataclass
class Screen:
    """The instruction and link screen for one document (its own hosts, plus the HR contact's)."""

    links: LinkPolicy
    found: list[Quarantined] = field(default_factory=list)

    @classmethod
    def for_hosts(cls, urls_or_hosts: Iterable[str]) -> Screen:
        """A screen for a document on these hosts: a link within their organisations
        (``rx.fabrikam.example`` for a document on ``hr.fabrikam.example``) is the document's own."""
        return cls(LinkPolicy.of(urls_or_hosts).widened_to_sites())

    def reason(self, sentence: str) -> str | None:
        """Why ``sentence`` is not policy text, or None."""
        found = self._verdict(sentence)
        return found[0] if found else None

    def _verdict(self, sentence: str) -> tuple[str, tuple[str, ...]] | None:
        """Why ``sentence`` is not policy text and, for a foreign link, the hosts it names; or None."""
        folded = reader_view(sentence)
        for reason, pattern in PATTERNS.items():
            if pattern.search(folded):
                return reason, ()
        foreign = tuple(self.links.foreign_hosts(sentence, emails=False))
        if foreign:
            return f"{LINK_REASON}{', '.join(foreign[:3])}, outside the document's organisation", foreign
        return None

    def clean(self, text: str, page: int) -> str:
        """``text`` without its quarantined sentences (all of it when most sentences are)."""
        parts = split_sentences(text)
        verdicts = [(s, self._verdict(s)) for s in parts]
        flagged = [(s, v) for s, v in verdicts if v]
        if not flagged:
            return text
        instructions = [v for _, v in flagged if not v[1]]
        if len(instructions) * 2 >= len(parts):
            self.found.append(Quarantined(page, flagged[0][1][0], " ".join(parts)))
            return ""
        for sentence, (reason, hosts) in flagged:
            self.found.append(Quarantined(page, reason, sentence, hosts))
        return " ".join(s for s, v in verdicts if not v)

    def apply(self, extracted: Extracted) -> Extracted:
        """A copy of ``extracted`` holding policy text only; what was removed is in ``found``."""
        blocks: list[Block] = []
        reported: set[str] = set()
        for block in extracted.blocks:
            heading = block.heading
            verdict = self._verdict(heading) if heading else None
            if verdict:
                if heading not in reported:
                    reported.add(heading)
                    self.found.append(Quarantined(block.page, verdict[0], heading, verdict[1]))
                heading = ""
            text = self.clean(block.text, block.page)
            if text.strip():
                blocks.append(Block(page=block.page, heading=heading, text=text, anchor=block.anchor))
        return Extracted(
            blocks=blocks,
            pages=extracted.pages,
            pages_without_text=list(extracted.pages_without_text),
            hidden=list(extracted.hidden),
        )
