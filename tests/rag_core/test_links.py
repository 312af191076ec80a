"""The one link policy: no host off the allow-list survives, whatever the link's shape.

Property-based: hypothesis builds links to a foreign host with a label no allowed host contains
(``zq…``), in every shape a chat client could turn into a link, glued into a cited sentence; the
property is that the label is gone from the output (compared case-, width- and zero-width-blind)
while the sentence's citation and the allowed links survive.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rag_core.citations import validate
from rag_core.links import LinkPolicy, host_of, is_domain

pytestmark = pytest.mark.unit

OWN = "hr.fabrikam.example"
HR = "hr.example.com"
POLICY = LinkPolicy.of([f"https://{OWN}/policies/medical-plan-2026.pdf", f"https://{HR}/contact"])
CHUNK = "medical-plan-2026_p1_c00"
OWN_URL = f"https://{OWN}/policies/medical-plan-2026.pdf#page=2"

TLDS = ["com", "net", "org", "co.uk", "io", "xyz", "zip", "example", "example.net", "test", "ru", "de"]
SCHEMES = ["https://", "http://", "HTTPS://", "hTtP://", "ftp://", "//", "https:\\\\", "https:/\\"]
GLUE = ["", "_", "1", "x", ".", "-", ":", "*", "~"]


def visible(text: str) -> str:
    """What a reader (or a linkifier) effectively sees: width-folded, case-folded, no zero-widths."""
    text = unicodedata.normalize("NFKC", text)
    for ch in "\u200b\u200c\u200d\u2060\ufeff\u00ad":
        text = text.replace(ch, "")
    return text.replace("\u3002", ".").casefold()


labels = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=3, max_size=8).map(lambda s: f"zq{s}")
foreign_hosts = st.builds(
    lambda sub, label, tld: f"{sub}{label}.{tld}",
    st.sampled_from(["", "www.", "login.", "hr.fabrikam.example.", "hr-fabrikam-example."]),
    labels,
    st.sampled_from(TLDS),
)
paths = st.sampled_from(["", "/", "/claim", "/a/b.png?q=leak", "/x#frag", ":8080/x", "/login?next=/home"])


@st.composite
def disguised(draw: st.DrawFn, host: str) -> str:
    """``host`` the way an attacker might spell it (still the same host to a client)."""
    style = draw(st.sampled_from(["plain", "upper", "fullwidth", "zero-width", "ideographic-dot"]))
    if style == "upper":
        return host.upper()
    if style == "fullwidth":
        return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in host)
    if style == "zero-width":
        cut = draw(st.integers(1, len(host) - 1))
        return host[:cut] + "\u200b" + host[cut:]
    if style == "ideographic-dot":
        return host.replace(".", "\u3002", 1)
    return host


@st.composite
def foreign_links(draw: st.DrawFn) -> tuple[str, str]:
    """(text containing a link to a foreign host, the host's unique label)."""
    host = draw(foreign_hosts)
    label = next(part for part in host.replace("-", ".").split(".") if part.startswith("zq"))
    spelled = draw(disguised(host))
    path = draw(paths)
    scheme = draw(st.sampled_from(SCHEMES))
    url = f"{draw(st.sampled_from(GLUE))}{scheme}{spelled}{path}"
    shape = draw(
        st.sampled_from(
            [
                "bare-domain",
                "url",
                "glued-url",
                "www",
                "markdown",
                "markdown-two-urls",
                "foreign-label",
                "slack",
                "autolink",
                "image",
                "email",
                "mailto",
                "userinfo",
                "backslash",
                "redirect",
                "title",
                "html",
                "reference",
            ]
        )
    )
    links = {
        "bare-domain": f"{spelled}{path}",
        "url": f"{scheme}{spelled}{path}",
        "glued-url": url,
        "www": f"www.{spelled}{path}",
        "markdown": f"[the member portal]({url})",
        "markdown-two-urls": f"[the member portal]({OWN_URL} {url})",
        "foreign-label": f"[{url}]({OWN_URL})",
        "slack": f"<{url}|the member portal>",
        "autolink": f"<{url}>",
        "image": f"![pixel]({url})",
        "email": f"claims@{spelled}",
        "mailto": f"[write to us](mailto:claims@{spelled})",
        "userinfo": f"https://{OWN}@{spelled}{path}",
        "backslash": f"https://{spelled}\\@{OWN}/x",
        "redirect": f"{OWN_URL}?next=https://{spelled}{path}",
        "title": f'[the member portal]({OWN_URL} "https://{spelled}")',
        "html": f'<a href="https://{spelled}{path}">the member portal</a>',
        "reference": f"[the member portal][1]\n[1]: https://{spelled}{path}",
    }
    return links[shape], label


sentence_templates = st.sampled_from(
    [
        "Activate your account at {link} before January 15.[^{c}]",
        "Activate your account at {link}.[^{c}]",
        "See {link}[^{c}]",
        "({link}) lists the pharmacies.[^{c}]",
        "Pharmacies:{link}, every state.[^{c}]",
        "{link}",
    ]
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(foreign_links(), sentence_templates)
def test_no_foreign_host_survives_in_any_shape(link: tuple[str, str], template: str) -> None:
    text, label = link
    sentence = template.format(link=text, c=CHUNK)
    stripped, removed = POLICY.strip(sentence)
    assert label not in visible(stripped), (sentence, stripped)
    assert removed >= 1
    assert POLICY.foreign_hosts(stripped) == []
    if "[^" in sentence:
        assert f"[^{CHUNK}]" in stripped


@settings(max_examples=200, deadline=None)
@given(foreign_links(), sentence_templates)
def test_the_validator_applies_the_policy(link: tuple[str, str], template: str) -> None:
    text, label = link
    result = validate(template.format(link=text, c=CHUNK), [CHUNK], [OWN_URL], link_hosts=[f"https://{HR}/contact"])
    assert label not in visible(result.text)


allowed_links = st.sampled_from(
    [
        OWN_URL,
        f"https://{OWN}/handbook#pto",
        f"https://{HR}/contact",
        f"[the plan summary]({OWN_URL})",
        f"[HR](https://{HR}/contact)",
        f"https://sub.{OWN}/x",
        "hr@fabrikam.example",
        f"{OWN}/contact",
    ]
)
prose = st.sampled_from(
    [
        "The plan covers 80% of costs (e.g. U.S. employees) from 6 a.m. to 9 p.m.",
        "Section 3.2 applies; see version 2026.1 and Form W-2.",
        "Call 1-800-555-0177, option 2, or write to Benefits.",
        "Personal data: kept for 7 years. Claim file: reviewed within 30 days.",
        "The 401(k) match is 100% of the first 6.5% of pay.",
    ]
)


@settings(max_examples=200, deadline=None)
@given(allowed_links, prose)
def test_allowed_links_and_ordinary_prose_are_untouched(link: str, text: str) -> None:
    sentence = f"{text} Details: {link}.[^{CHUNK}]"
    stripped, removed = POLICY.strip(sentence)
    assert stripped == sentence and removed == 0


@pytest.mark.parametrize(
    "text",
    [
        "Claim at evil.example/claim today.",  # the bare domain
        "Claim at _https://evil.example.net/claim today.",
        "Claim at 1https://evil.example.net/claim today.",
        f"[portal]({OWN_URL} https://evil.example.net/claim)",  # a markdown link holding two URLs
        f"[https://evil.example.net/claim]({OWN_URL})",  # an allowed link whose label is a foreign URL
        "<https://evil.example.net/claim>",
        "Go to EVIL.EXAMPLE.NET now.",
    ],
)
def test_the_reported_bypasses_are_closed(text: str) -> None:
    stripped, _ = POLICY.strip(text)
    assert "evil" not in stripped.lower()


def test_a_removed_link_leaves_a_visible_mark_not_a_hole() -> None:
    sentence = "Email the Compliance Officer at compliance@contoso.example."
    stripped, removed = POLICY.strip(sentence)
    assert stripped == "Email the Compliance Officer at [link removed]." and removed == 1


def test_an_allowed_link_keeps_its_label_and_target() -> None:
    stripped, _ = POLICY.strip(f"<{OWN_URL}|the plan summary>")
    assert stripped == f"[the plan summary]({OWN_URL})"


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://hr.fabrikam.example@evil.example/x", "evil.example"),
        ("https://evil.example\\@hr.fabrikam.example/x", "evil.example"),  # browsers read \ as /
        ("HTTPS://EVIL.Example:8443/x", "evil.example"),
        ("//evil.example/x", "evil.example"),
    ],
)
def test_host_of_reads_hosts_as_a_browser_does(url: str, host: str) -> None:
    assert host_of(url) == host


@pytest.mark.parametrize(
    ("name", "domain"),
    [
        ("evil.example", True),
        ("plan.zip", True),
        ("evil.co.uk", True),
        ("form.pdf", False),
        ("U.S", False),
        ("covered.Employees", False),
        ("2026.1", False),
    ],
)
def test_is_domain_knows_public_suffixes_and_reserved_names(name: str, domain: bool) -> None:
    assert is_domain(name) is domain
