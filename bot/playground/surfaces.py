"""Block Kit and Adaptive Card JSON as readable HTML: what Slack and Teams would show.

The JSON comes from the real renderers (``bot.slack.blocks``, ``bot.teams.cards``); this module
only draws it. Everything in it is untrusted (document text reaches answers and snippets), so
every piece of text is HTML-escaped before any markup is added around it, links are drawn only
for http(s) targets, and images are never loaded (their alt text is shown instead).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from markupsafe import Markup, escape

_SLACK_LINK = re.compile(r"<([^<>|]+)(?:\|([^<>]*))?>")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\(([^)\s]+)\)")


def _link(url: str, label: Markup) -> Markup:
    if not url.startswith(("https://", "http://")):
        return label
    return Markup('<a href="{}" target="_blank" rel="noopener noreferrer">{}</a>').format(url, label)


def _emphasis(html: str, *, bold: str, italic: str) -> str:
    """Bold, italic, strike-through and code spans on text that is already escaped."""
    html = re.sub(r"`([^`\n]+)`", r"<code>\1</code>", html)
    html = re.sub(bold, r"<strong>\1</strong>", html)
    html = re.sub(italic, r"<em>\1</em>", html)
    html = re.sub(r"~([^~\n]+)~", r"<del>\1</del>", html)
    return html.replace("\n", "<br>")


def _linked(
    text: str, pattern: re.Pattern[str], fmt: Callable[[str], Markup], link: Callable[[re.Match[str]], Markup]
) -> Markup:
    out: list[Markup] = []
    position = 0
    for match in pattern.finditer(text):
        out.append(fmt(text[position : match.start()]))
        out.append(link(match))
        position = match.end()
    out.append(fmt(text[position:]))
    return Markup("").join(out)


# ----- Slack ---------------------------------------------------------------------------------------
def _unslack(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _slack_text(text: str) -> Markup:
    html = str(escape(_unslack(text)))
    return Markup(
        _emphasis(html, bold=r"(?<![\w*])\*(?!\s)([^*\n]+?)\*(?![\w*])", italic=r"(?<![\w])_(?!\s)([^_\n]+?)_(?![\w])")
    )


def mrkdwn(text: str) -> Markup:
    """Slack mrkdwn: ``<url|label>`` links, ``*bold*``, ``_italic_``, ``~strike~``, `code`."""

    def link(match: re.Match[str]) -> Markup:
        target, label = _unslack(match.group(1)), match.group(2)
        if target.startswith(("@", "#", "!")):
            return escape(label or ("@" + target.lstrip("@#!")))
        return _link(target, _slack_text(label if label is not None else target))

    return _linked(text, _SLACK_LINK, _slack_text, link)


def _slack_text_object(obj: Any) -> Markup:
    if not isinstance(obj, dict):
        return Markup("")
    text = str(obj.get("text", ""))
    return mrkdwn(text) if obj.get("type") == "mrkdwn" else escape(text)


def _slack_element(element: Any) -> Markup:
    if not isinstance(element, dict):
        return Markup("")
    kind = element.get("type")
    if kind in ("mrkdwn", "plain_text"):
        return _slack_text_object(element)
    if kind == "button":
        return Markup('<span class="button" title="{}">{}</span>').format(
            element.get("action_id", ""), _slack_text_object(element.get("text"))
        )
    if kind == "image":
        return Markup('<span class="image">[image: {}]</span>').format(element.get("alt_text", ""))
    if kind == "feedback_buttons":  # Slack's native thumbs: 👍 / 👎 icons with their labels as titles
        buttons = [(element.get("positive_button"), "👍"), (element.get("negative_button"), "👎")]
        return Markup(" ").join(
            Markup('<span class="button" title="{}">{}</span>').format(
                (b.get("text") or {}).get("text", "") if isinstance(b, dict) else "", icon
            )
            for b, icon in buttons
            if isinstance(b, dict)
        )
    return Markup('<span class="unsupported">[{}]</span>').format(kind)


def _slack_block(block: Any) -> Markup:
    if not isinstance(block, dict):
        return Markup("")
    kind = block.get("type")
    if kind == "section":
        fields = Markup("").join(
            Markup("<div>{}</div>").format(_slack_text_object(f)) for f in block.get("fields") or []
        )
        return Markup('<div class="sk-section">{}{}</div>').format(_slack_text_object(block.get("text")), fields)
    if kind == "context":
        items = Markup(" ").join(_slack_element(e) for e in block.get("elements") or [])
        return Markup('<div class="sk-context">{}</div>').format(items)
    if kind in ("actions", "context_actions"):
        items = Markup(" ").join(_slack_element(e) for e in block.get("elements") or [])
        return Markup('<div class="sk-actions">{}</div>').format(items)
    if kind == "header":
        return Markup('<div class="sk-header">{}</div>').format(_slack_text_object(block.get("text")))
    if kind == "divider":
        return Markup('<hr class="sk-divider">')
    return Markup('<div class="unsupported">[{} block]</div>').format(kind)


def slack_html(blocks: Iterable[Any]) -> Markup:
    """Slack's rendering of a message's blocks."""
    return Markup("").join(_slack_block(b) for b in blocks)


# ----- Teams ---------------------------------------------------------------------------------------
def _md_text(text: str) -> Markup:
    html = str(escape(text))
    return Markup(_emphasis(html, bold=r"\*\*(?!\s)(.+?)\*\*", italic=r"(?<![\w])_(?!\s)([^_\n]+?)_(?![\w])"))


def markdown(text: str) -> Markup:
    """The markdown subset Teams renders in cards and messages: ``**bold**``, ``_italic_``, links;
    markdown images are shown as their alt text, never fetched."""

    def link(match: re.Match[str]) -> Markup:
        label, target = match.group(1), match.group(2)
        if match.group(0).startswith("!"):
            return Markup('<span class="image">[image: {}]</span>').format(label)
        return _link(target, _md_text(label))

    return _linked(text, _MD_LINK, _md_text, link)


def _card_element(element: Any) -> Markup:
    if not isinstance(element, dict):
        return Markup("")
    kind = element.get("type")
    if kind == "TextBlock":
        classes = ["ac-text"]
        if element.get("weight") == "Bolder":
            classes.append("bold")
        if element.get("isSubtle"):
            classes.append("subtle")
        if element.get("size") in ("Large", "ExtraLarge", "Medium"):
            classes.append("large")
        return Markup('<div class="{}">{}</div>').format(" ".join(classes), markdown(str(element.get("text", ""))))
    if kind in ("Container", "Column"):
        return Markup('<div class="ac-container">{}</div>').format(
            Markup("").join(_card_element(e) for e in element.get("items") or [])
        )
    if kind == "ColumnSet":
        return Markup('<div class="ac-columns">{}</div>').format(
            Markup("").join(_card_element(c) for c in element.get("columns") or [])
        )
    if kind == "FactSet":
        rows = Markup("").join(
            Markup("<tr><th>{}</th><td>{}</td></tr>").format(f.get("title", ""), markdown(str(f.get("value", ""))))
            for f in element.get("facts") or []
            if isinstance(f, dict)
        )
        return Markup('<table class="ac-facts">{}</table>').format(rows)
    if kind == "Image":
        return Markup('<span class="image">[image: {}]</span>').format(element.get("altText", ""))
    if kind == "ActionSet":
        return _card_actions(element.get("actions") or [])
    return Markup('<div class="unsupported">[{}]</div>').format(kind)


def _card_actions(actions: Iterable[Any]) -> Markup:
    buttons = []
    for action in actions:
        if not isinstance(action, dict):
            continue
        title = escape(str(action.get("title", "")))
        if action.get("type") == "Action.OpenUrl":
            buttons.append(_link(str(action.get("url", "")), Markup('<span class="button">{}</span>').format(title)))
        else:
            buttons.append(Markup('<span class="button">{}</span>').format(title))
    return Markup('<div class="ac-actions">{}</div>').format(Markup(" ").join(buttons)) if buttons else Markup("")


def adaptive_card_html(card: dict[str, Any]) -> Markup:
    body = Markup("").join(_card_element(e) for e in card.get("body") or [])
    return Markup('<div class="ac-card">{}{}</div>').format(body, _card_actions(card.get("actions") or []))


def _citations(entities: Iterable[Any]) -> Markup:
    """Teams citation entities (schema.org Message with ``citation`` claims), when a reply carries them."""
    items = []
    for entity in entities:
        if not isinstance(entity, dict):
            continue
        for claim in entity.get("citation") or []:
            appearance = claim.get("appearance") or {} if isinstance(claim, dict) else {}
            label = _link(str(appearance.get("url", "")), escape(str(appearance.get("name", ""))))
            items.append(
                Markup('<li>[{}] {} <span class="subtle">{}</span></li>').format(
                    claim.get("position", "?"), label, appearance.get("abstract", "")
                )
            )
    return Markup('<ol class="ac-citations">{}</ol>').format(Markup("").join(items)) if items else Markup("")


def teams_html(activity: dict[str, Any]) -> Markup:
    """Teams' rendering of a message activity: its text, its Adaptive Cards and its citations."""
    parts: list[Markup] = []
    if activity.get("text"):
        parts.append(Markup('<div class="ac-text">{}</div>').format(markdown(str(activity["text"]))))
    for attachment in activity.get("attachments") or []:
        if not isinstance(attachment, dict):
            continue
        content = attachment.get("content")
        if attachment.get("contentType") == "application/vnd.microsoft.card.adaptive" and isinstance(content, dict):
            parts.append(adaptive_card_html(content))
        else:
            parts.append(Markup('<div class="unsupported">[attachment {}]</div>').format(attachment.get("contentType")))
    parts.append(_citations(activity.get("entities") or []))
    return Markup("").join(parts)
