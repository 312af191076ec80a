"""A tiny language guess (English or Spanish) for choosing between a policy and its translation.

Only used to prefer a translation; it never widens access. An explicit language in the token
(``lang`` claim) becomes a hard filter instead.
"""

from __future__ import annotations

import re

_SPANISH = {
    "el",
    "la",
    "los",
    "las",
    "de",
    "del",
    "que",
    "qué",
    "cuántas",
    "cuántos",
    "cuánto",
    "cuánta",
    "cómo",
    "para",
    "por",
    "mi",
    "tengo",
    "semanas",
    "permiso",
    "es",
    "una",
    "un",
    "y",
    "con",
    "se",
    "puedo",
    "cuál",
    "cuáles",
    "dónde",
    "cuando",
    "cuándo",
    "hay",
    "sobre",
    "mis",
    "tiene",
    "son",
    "está",
    "licencia",
    "beneficios",
    "empleado",
    "empleados",
    "plan",
    "padres",
    "días",
    "año",
    "pago",
}
_ENGLISH = {
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "for",
    "what",
    "how",
    "many",
    "much",
    "my",
    "do",
    "does",
    "i",
    "can",
    "are",
    "with",
    "on",
    "an",
    "a",
    "get",
    "about",
    "when",
    "which",
    "who",
    "leave",
    "weeks",
}


def detect_language(text: str) -> str:
    words = re.findall(r"[a-záéíóúñü]+", text.lower())
    if "¿" in text or "¡" in text:
        return "es"
    spanish = sum(w in _SPANISH for w in words) + sum(ch in "áéíóúñ" for ch in text.lower())
    english = sum(w in _ENGLISH for w in words)
    return "es" if spanish > english else "en"
