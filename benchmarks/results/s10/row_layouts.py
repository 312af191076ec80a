"""Reader logits of one table row in five layouts, for answering and unrelated questions (one-off,
session 10; output in row-layouts.txt):

    HF_HUB_OFFLINE=1 PYTHONPATH=. .venv/bin/python benchmarks/results/s10/row_layouts.py

V2 is what ships (``rag_core.reading.spans.row_statement``).
"""

import re

from rag_core.models.cross import CrossEncoder

ROW = re.compile(r"^(?P<col>[^:;]{2,60}): (?P<label>[^;]{1,120}); (?P<rest>.*)$")
TIERS = "Employee Contributions"
GLANCE = "Plan Options at a Glance"
SPOUSE = (
    "Coverage tier: Employee + spouse or domestic partner; PPO Plan (per paycheck): $148.00; "
    "HDHP with HSA (per paycheck): $71.00."
)
FAMILY = "Coverage tier: Family; PPO Plan (per paycheck): $212.00; HDHP with HSA (per paycheck): $104.00."
ER = (
    "Benefit (in-network): Emergency room; PPO Plan: $300 copay (waived if admitted); "
    "HDHP with HSA: 20% after deductible."
)
CASES = [
    ("how much is deducted from each paycheck for the PPO Plan if I cover myself and my spouse?", TIERS, SPOUSE),
    (
        "Could you please tell me how much is deducted from each paycheck for the PPO Plan if I cover myself "
        "and my spouse?",
        TIERS,
        SPOUSE,
    ),
    (
        "just had baby #2 and we're on the hdhp family tier now, how much is actually coming out of each "
        "paycheck for medical??",
        TIERS,
        FAMILY,
    ),
    (
        "I am enrolled in the Enhanced dental tier. What percentage of the allowed amount does the plan pay for "
        "a root canal at an in-network dentist?",
        "Tier Comparison",
        "Feature (in-network): Basic services (fillings, simple extractions, root canals, periodontal scaling); "
        "Basic: 70% after deductible; Enhanced: 80% after deductible.",
    ),
    (
        "If I visit the emergency room while enrolled in the PPO Plan, what copay will I owe, and does it still "
        "apply if I am admitted to the hospital?",
        GLANCE,
        ER,
    ),
    (
        "whats the worst case in-network OOP max for us on the HDHP family",
        GLANCE,
        "Benefit (in-network): Out-of-pocket maximum (individual / family); PPO Plan: $4,000 / $8,000; "
        "HDHP with HSA: $4,500 / $9,000.",
    ),
    (
        "I have been with Fabrikam for seven years. What is the maximum vacation balance I can hold before my "
        "accrual stops?",
        "Paid Time Off (Vacation)",
        "Years of service: 6 or more years; Annual vacation: 25 days (200 hours); Accrual per biweekly pay "
        "period: 7.69 hours; Maximum balance: 300 hours.",
    ),
    ("What is the ER copay on the PPO?", GLANCE, ER),
    # unrelated: these should stay low
    ("Does Fabrikam offer pet insurance?", TIERS, FAMILY),
    ("copay for a routine hearing exam under the PPO?", GLANCE, ER),
    ("how much does the long-term care insurance premium cost per paycheck?", TIERS, FAMILY),
]


def cells(rest: str) -> list[tuple[str, str]]:
    out = []
    for part in rest.rstrip(".").split("; "):
        key, sep, value = part.partition(": ")
        out.append((key, value) if sep else ("", part))
    return out


def layouts(heading: str, row: str) -> dict[str, str]:
    match = ROW.match(row)
    assert match is not None
    column, label, rest = match["col"], match["label"], cells(match["rest"])
    keyed = "; ".join(f"{k}: {v}" for k, v in rest)
    natural = ", ".join(f"{k} is {v}" if k else v for k, v in rest)
    return {
        "V0 as is": f"{heading}: {row}",
        "V1 label-first": f"{heading}: {label} ({column.lower()}): {keyed}.",
        "V2 natural": f"{heading}: {label} ({column.lower()}): {natural}.",
        "V3 nohead label-first": f"{label} ({column.lower()}): {keyed}.",
        "V4 for-natural": f"{heading}: For {label}, " + ", and ".join(f"{k} is {v}" if k else v for k, v in rest) + ".",
    }


def main() -> None:
    encoder = CrossEncoder.shared(None, max_length=128)
    for question, heading, row in CASES:
        variants = layouts(heading, row)
        scores = encoder.logits(question, list(variants.values()))
        print(question[:70])
        print(
            "   " + "  ".join(f"{name.split()[0]} {score:5.2f}" for name, score in zip(variants, scores, strict=True))
        )


if __name__ == "__main__":
    main()
