"""One link policy for everything the bot shows or indexes.

A link (or anything a chat client could turn into one) survives only if its host is on the
allow-list: the documents' own hosts and the HR contact's host (and their subdomains). Whatever
the form: ``https://…``, a scheme glued to a word (``_https://``, ``1https://``), ``//host``,
``www.…``, a bare domain (``evil.example/claim``, ``evil.co.uk``), an e-mail address, an IP with a
path, a markdown link (its target, its title and its label are each checked: an allowed link
whose label is a foreign URL is not allowed), a Slack ``<url|label>`` or an autolink ``<url>``.
``javascript:``, ``data:`` and ``vbscript:`` never survive. Images never survive.

The policy works on *runs*: maximal stretches of text without whitespace or markup brackets. A
run that mentions any host not on the list is replaced whole by a visible ``[link removed]`` (so a
foreign URL hidden in the query string of an allowed one goes too), keeping its trailing sentence
punctuation.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

# Reserved names (RFC 2606, RFC 6761, common private zones) that the Public Suffix List omits
# but a chat client or browser will still happily link.
_RESERVED_TLDS = frozenset(
    {
        "example",
        "test",
        "invalid",
        "localhost",
        "local",
        "onion",
        "internal",
        "lan",
        "corp",
        "home",
        "intranet",
        "localdomain",
    }
)
_DOT = "[.\u3002\uff0e\uff61]"  # IDNA treats the ideographic and fullwidth full stops as dots
_LABEL = r"[^\W_](?:[^\W_]|-)*"
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")

# A run ends at whitespace, at markup brackets and quotes, and at a citation marker.
_RUN = re.compile(r"""[^\s<>()\[\]{}"'`|“”‘’]+""")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:(?://|\\\\|/\\|\\/)")
_DANGEROUS_SCHEME = re.compile(r"(?:javascript|vbscript|livescript):|data:[\w.+-]+/[\w.+-]+", re.IGNORECASE)
_WWW = re.compile(rf"(?<![\w.])www\d{{0,3}}{_DOT}{_LABEL}", re.IGNORECASE)
# What the policy counts as an e-mail address (public: the answer-type gate asks whether a text gives one).
EMAIL_ADDRESS = re.compile(rf"[\w.+\-]+@((?:{_LABEL}{_DOT})+{_LABEL})")
_DOMAIN = re.compile(rf"(?<![\w@])(?:{_LABEL}{_DOT})+({_LABEL}){_DOT}?(?=[/:?#\\]|$|[^\w.\-])")
_IP = re.compile(r"(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?=[:/\\])")
_TRAILING = re.compile(r"[.,;:!?]+$")
REMOVED_LINK = "[link removed]"

IMAGE = re.compile(r"!\[[^\]]*\]\((?:[^()]|\([^()]*\))*\)|!\[[^\]]*\]\[[^\]]*\]")
_SLACK_LINK = re.compile(r"<([^<>|\s]+)\|([^<>]*)>")
_AUTOLINK = re.compile(r"<([^<>\s]+)>")
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_MD_LINK = re.compile(r"\[(?!\^)([^\[\]]*)\]\(((?:[^()]|\([^()]*\))*)\)")


@lru_cache(maxsize=1)
def _psl() -> object:
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList(only_icann=True)


@lru_cache(maxsize=1)
def _psl_with_private() -> object:
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList()


def site_of(host: str) -> str:
    """The registrable domain (organisation) of ``host``: ``hr.fabrikam.example`` -> ``fabrikam.example``.
    The Public Suffix List's private section keeps tenants of shared hosts apart
    (``a.github.io`` and ``b.github.io`` are two sites)."""
    host = normalise_host(host)
    site = _psl_with_private().privatesuffix(host, accept_unknown=False)  # type: ignore[attr-defined]
    if site:
        return str(site)
    labels = host.split(".")
    return ".".join(labels[-2:]) if len(labels) >= 2 and labels[-1] in _RESERVED_TLDS else host


def normalise_host(host: str) -> str:
    host = unicodedata.normalize("NFKC", host).lower()
    host = re.sub(_DOT, ".", host).strip(".")
    return host.strip("[]")


def is_domain(name: str) -> bool:
    """A name a client would treat as a host: it ends in a known public suffix or a reserved TLD."""
    name = normalise_host(name)
    if "." not in name:
        return name == "localhost"
    tld = name.rsplit(".", 1)[1]
    if tld in _RESERVED_TLDS:
        return True
    return _psl().publicsuffix(name, accept_unknown=False) is not None  # type: ignore[attr-defined]


def host_of(url: str) -> str:
    """The host a browser would visit for ``url`` (WHATWG-style: ``\\`` counts as ``/``, the host is
    what follows the last ``@`` of the authority), lower-cased; "" when there is none."""
    rest = url.split(":", 1)[1] if _SCHEME.match(url) else url
    rest = rest.lstrip("/\\")
    authority = re.split(r"[/\\?#,;!'\"<>()\s]", rest, maxsplit=1)[0]
    host = authority.rsplit("@", 1)[-1]
    if host.startswith("["):
        return host.split("]", 1)[0].strip("[").lower()
    return normalise_host(host.split(":", 1)[0])


def _allowed(host: str, allowed: frozenset[str]) -> bool:
    return any(host == h or host.endswith("." + h) for h in allowed)


def _mail_allowed(domain: str, allowed: frozenset[str]) -> bool:
    """A mail domain is the organisation's when it is an allowed host, under one or above one
    (``hr@fabrikam.example`` for documents on ``hr.fabrikam.example``)."""
    return any(domain == h or domain.endswith("." + h) or h.endswith("." + domain) for h in allowed)


@dataclass(frozen=True)
class LinkPolicy:
    allowed_hosts: frozenset[str]

    @classmethod
    def of(cls, urls_or_hosts: Iterable[str]) -> LinkPolicy:
        hosts = set()
        for item in urls_or_hosts:
            host = host_of(item) if ("://" in item or "/" in item) else normalise_host(item)
            if host:
                hosts.add(host)
        return cls(frozenset(hosts))

    def widened_to_sites(self) -> LinkPolicy:
        """The same list with each host widened to its organisation's domain (for judging whether a
        document links outside its organisation, never for what is shown to users)."""
        return LinkPolicy(frozenset(site_of(h) for h in self.allowed_hosts))

    def foreign_hosts(self, text: str, *, emails: bool = True) -> list[str]:
        """Every host mentioned in ``text`` (in any form) that is not allowed; "javascript:" and
        the like are reported by their scheme. ``emails=False`` leaves plain e-mail addresses out."""
        found: list[str] = []
        text = _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))
        for run in _RUN.finditer(text):
            found.extend(h for h in self._run_offences(run.group(0), emails=emails) if h not in found)
        return found

    def _run_offences(self, run: str, *, emails: bool = True) -> list[str]:
        """The disallowed hosts one run mentions."""
        offences: list[str] = []
        for match in _DANGEROUS_SCHEME.finditer(run):
            offences.append(match.group(0).split(":", 1)[0].lower() + ":")
        # Stretches that are a URL's path or query: a name there ("report.md") is part of that URL,
        # whose host is what a client visits. A nested URL with a scheme is judged on its own.
        paths: list[tuple[int, int]] = []
        for match in _SCHEME.finditer(run):
            scheme = match.group(0).split(":", 1)[0].lower()
            host = host_of(run[match.start() :])
            authority = re.search(r"[/\\?#]", run[match.end() :])
            paths.append((match.end() + authority.start() if authority else len(run), len(run)))
            if scheme == "mailto":
                continue
            if not host or not _allowed(host, self.allowed_hosts):
                offences.append(host or scheme + ":")
        addresses = list(EMAIL_ADDRESS.finditer(run))
        for match in addresses if emails else ():
            domain = normalise_host(match.group(1))
            if is_domain(domain) and not _mail_allowed(domain, self.allowed_hosts):
                offences.append(domain)
        for match in _WWW.finditer(run):
            host = host_of(run[match.start() :])
            if not any(start <= match.start() < end for start, end in paths) and not _allowed(host, self.allowed_hosts):
                offences.append(host)
        for match in _DOMAIN.finditer(run):
            inside = any(start <= match.start() < end for start, end in paths)
            if inside or any(e.start() <= match.start() < e.end() for e in addresses):
                continue
            name = normalise_host(match.group(0))
            if not is_domain(name):
                continue
            if match.end() < len(run) and run[match.end()] in "/\\?#:":
                paths.append((match.end(), len(run)))
            if not _allowed(name, self.allowed_hosts):
                offences.append(name)
        for match in _IP.finditer(run):
            if not any(start <= match.start() < end for start, end in paths) and not _allowed(
                match.group(0), self.allowed_hosts
            ):
                offences.append(match.group(0))
        return offences

    def strip(self, text: str) -> tuple[str, int]:
        """``text`` with every disallowed link removed; returns (text, number removed)."""
        removed = 0
        text = _INVISIBLE.sub("", text)

        def count(n: int = 1) -> None:
            nonlocal removed
            removed += n

        def drop_image(_: re.Match[str]) -> str:
            count()
            return ""

        def drop_tag(match: re.Match[str]) -> str:
            if self.foreign_hosts(match.group(0)):
                count()
            return ""

        text = IMAGE.sub(drop_image, text)
        text = _HTML_TAG.sub(drop_tag, text)
        text = _SLACK_LINK.sub(lambda m: f"[{m.group(2)}]({m.group(1)})", text)
        text = _AUTOLINK.sub(lambda m: m.group(1), text)

        def check_run(match: re.Match[str]) -> str:
            run = match.group(0)
            if not self._run_offences(unicodedata.normalize("NFKC", run)):
                return run
            count()
            # A visible mark, not a silent hole: "Email the Compliance Officer at ." reads as if the
            # document named no address; the mark says one was there (the cited page shows it).
            trailing = _TRAILING.search(run)
            return REMOVED_LINK + (trailing.group(0) if trailing else "")

        text = _RUN.sub(check_run, text)

        def tidy_link(match: re.Match[str]) -> str:
            label, target = match.group(1).strip(), match.group(2).split()
            if label and len(target) == 1 and "://" in target[0] and not self._run_offences(target[0]):
                return f"[{label}]({target[0]})"
            return label

        text = _MD_LINK.sub(tidy_link, text)
        text = re.sub(r"[ \t]{2,}", " ", text)
        text = re.sub(r"[ \t]+([.,;:!?])", r"\1", text)
        return text.strip(), removed
