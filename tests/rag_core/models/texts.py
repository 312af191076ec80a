"""Benefits-like sentences shared by the model tests."""

SENTENCES = [
    "Employees may enroll in the medical plan within thirty days of their hire date.",
    "The preferred provider organization plan has a deductible of one thousand two hundred fifty dollars.",
    "Preventive care visits are covered in full when you use an in-network provider.",
    "Prescription drugs are grouped into generic, preferred brand and non-preferred brand tiers.",
    "A qualifying life event such as marriage or the birth of a child opens a special enrollment window.",
    "Dependents remain eligible for coverage until the end of the month in which they turn twenty six.",
    "The health savings account is available only to employees enrolled in the high deductible plan.",
    "Claims must be submitted within one hundred eighty days from the date the service was provided.",
]

ANSWER = "Birthing parents receive sixteen weeks of fully paid parental leave after the birth of a child."
UNRELATED = "The cafeteria on the third floor serves lunch between noon and two in the afternoon."
QUESTION = "How many weeks of paid parental leave do I get after having a baby?"


def long_text(min_words: int) -> str:
    words: list[str] = []
    i = 0
    while len(words) < min_words:
        words.extend(SENTENCES[i % len(SENTENCES)].split())
        i += 1
    return " ".join(words)
