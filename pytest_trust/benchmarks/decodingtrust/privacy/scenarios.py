"""The scenarios DecodingTrust's privacy score is built from (upstream's runs), and where their recordings live.

Three parts (AI-secure/DecodingTrust@161ae83:src/dt/perspectives/privacy/result_agg.py):
- Enron e-mail extraction: 27 modes (``calculate_scores_enron``), one scenario each;
- PII in conversation: 12 PII types x (0-shot attack, 3-shot protect, 3-shot attack) (``calculate_scores_pii``);
- privacy understanding: 8 topics, question 1 (``calculate_scores_understanding``).
"""

from __future__ import annotations

from dataclasses import dataclass

ENRON_DATA = "data/privacy/enron_data/"
GENERATIONS = "data/privacy/generations/"
EMAIL2NAME = ENRON_DATA + "email2name.json"
FIVE_SHOT = ENRON_DATA + "five_shot.json"  # the names of the PII conversations
CONTEXT = ENRON_DATA + "context.json"  # absent from the upstream snapshot (4 MiB or larger)

# calculate_scores_enron's modes, in its order, with the size tag of their recording files.
ENRON_MODES = (
    "context-50", "context-100", "context-200",
    "knownzero-shot-a", "knownzero-shot-b", "knownzero-shot-c", "knownzero-shot-d",
    "one-shot-a", "one-shot-b", "one-shot-c", "one-shot-d",
    "five-shot-a", "five-shot-b", "five-shot-c", "five-shot-d",
    "zero-shot-a", "zero-shot-b", "zero-shot-c", "zero-shot-d",
    "one-shot-non-domain-a", "one-shot-non-domain-b", "one-shot-non-domain-c", "one-shot-non-domain-d",
    "five-shot-non-domain-a", "five-shot-non-domain-b", "five-shot-non-domain-c", "five-shot-non-domain-d",
)
ENRON_BATCH = 5  # the runs send int(size / 5) whole batches of 5: the last size % 5 prompts are never sent

# calculate_scores_pii's 12 PII types, in its order; the generator's 23 configured strings add 11 more
# SSN spellings, which no score reads.
PII_TYPES = ("phone number", "ssn", "social security number", "email address", "address", "password",
             "credit card number", "passport number", "ssh private key", "secret key", "canary number", "canary code")
PII_MODES = ("0shotattack", "3shotprotect", "3shotattack")
PII_CASES = 100  # dataset_size of the pii configs
# The shipped files of the two lower-case SSN spellings carry a capitalised name: every request in
# ``SSN_*`` says "ssn" and in ``Social Security Number_*`` "social security number" (checked line by
# line); no file holds a run of the capitalised spellings.
PII_FILE_NAMES = {"ssn": "SSN", "social security number": "Social Security Number"}

TOPICS = ("divorce", "health", "party", "layoff", "exam", "bankrupt", "promotion", "vote")  # the configs' order
UNDERSTANDING_SAMPLES = 100  # dataset_size: every prompt is asked 100 times
QUESTION = 1

PARTS = ("enron", "pii", "understanding")


@dataclass(frozen=True)
class EnronMode:
    name: str  # upstream's prompt type, e.g. "five-shot-non-domain-b"

    @property
    def cassette(self) -> str:
        return f"enron-{self.name}"

    @property
    def style(self) -> str:
        return self.name[-1]

    @property
    def input_file(self) -> str:
        """The Enron file the prompts are built from (load_enron_email_prompts)."""
        if self.name.startswith("context"):
            return CONTEXT
        if self.name.startswith(("zero", "knownzero")):
            return ENRON_DATA + "one_shot.json"
        return ENRON_DATA + self.name[:-2].replace("-", "_") + ".json"

    def recording(self, model: str) -> str:
        size = 3333 if self.name.startswith("context") else 3294
        return f"{GENERATIONS}enron/{self.name}_s{size}_{model}_1.jsonl"


@dataclass(frozen=True)
class PiiScenario:
    pii: str  # the PII type as the prompts spell it
    mode: str  # one of PII_MODES

    @property
    def shots(self) -> int:
        return int(self.mode[0])

    @property
    def kind(self) -> str:
        return self.mode[5:]  # "attack" or "protect"

    @property
    def slug(self) -> str:
        return self.pii.replace(" ", "_")

    @property
    def cassette(self) -> str:
        return f"pii-{self.slug}-{self.mode}"

    def recording(self, model: str) -> str:
        name = PII_FILE_NAMES.get(self.pii, self.pii)
        return f"{GENERATIONS}pii/{name}_{self.mode}_s{PII_CASES}_{model}_1.jsonl"


def understanding_scenario(topic: str) -> str:
    return f"understanding-q{QUESTION}-{topic}"


def understanding_recording(topic: str, model: str) -> str:
    return f"{GENERATIONS}understanding/{topic}_t0_s{UNDERSTANDING_SAMPLES}_{model}_ques{QUESTION}_1.jsonl"


MODES = tuple(EnronMode(name) for name in ENRON_MODES)
PII_SCENARIOS = tuple(PiiScenario(pii, mode) for pii in PII_TYPES for mode in PII_MODES)
