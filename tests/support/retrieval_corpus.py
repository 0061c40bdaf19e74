"""A made-up retrieval corpus: 16 short passages (pairs of them share a topic, so a lexical near-miss
is always available) and 32 questions that paraphrase their passage instead of quoting it, with the
rankings and metrics that score a retriever on them.

tests/test_retrieval.py holds the offline embeddings to a bar on it; benchmarks/retrieval_ranking.py
prints the numbers and the embedding speed.
"""

from __future__ import annotations

import re

#: (source, passage)
CORPUS: list[tuple[str, str]] = [
    ("eiffel", "The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris. It was built "
               "by Gustave Eiffel's company for the 1889 World's Fair and is about 330 metres tall."),
    ("louvre", "The Louvre, in the heart of Paris, is the most visited art museum in the world. Its "
               "collection includes the Mona Lisa and the Venus de Milo, and a glass pyramid marks its entrance."),
    ("everest", "Mount Everest, on the border between Nepal and China, is the highest mountain above sea "
                "level at 8,849 metres. Edmund Hillary and Tenzing Norgay first reached its summit in 1953."),
    ("k2", "K2, in the Karakoram range between Pakistan and China, is the second-highest mountain on "
           "Earth. Climbers consider it far deadlier than Everest because of its steep faces and sudden storms."),
    ("photosynthesis", "Photosynthesis is the process by which green plants use sunlight, water and carbon "
                       "dioxide to make glucose, releasing oxygen as a by-product in their chloroplasts."),
    ("respiration", "Cellular respiration breaks glucose down with oxygen inside the mitochondria, releasing "
                    "the energy cells need as ATP and giving off carbon dioxide and water."),
    ("mars", "Mars is the fourth planet from the Sun. Iron oxide dust gives its surface a reddish colour, "
             "and it has two small moons, Phobos and Deimos."),
    ("jupiter", "Jupiter is the largest planet in the Solar System, a gas giant more than twice as massive as "
                "all the other planets combined, famous for its Great Red Spot storm."),
    ("python", "Python is a high-level programming language created by Guido van Rossum and first released "
               "in 1991. Its design emphasises readable code with significant indentation."),
    ("rust", "Rust is a systems programming language that guarantees memory safety without a garbage "
             "collector, using an ownership model checked by the compiler's borrow checker."),
    ("vaccine", "Vaccines train the immune system by exposing it to a harmless piece or weakened form of a "
                "pathogen, so the body produces antibodies and memory cells before a real infection."),
    ("antibiotics", "Antibiotics kill bacteria or stop them from multiplying. They do not work against "
                    "viruses, and overusing them lets resistant strains of bacteria spread."),
    ("coffee", "Coffee is brewed from the roasted seeds of the Coffea plant. Its caffeine blocks adenosine "
               "receptors in the brain, which makes people feel more alert."),
    ("tea", "Green tea and black tea come from the same plant, Camellia sinensis; black tea leaves are "
            "oxidised before drying while green tea leaves are heated quickly to prevent oxidation."),
    ("inflation", "Inflation is the rate at which the general level of prices rises. Central banks usually "
                  "raise interest rates to slow it down by making borrowing more expensive."),
    ("great-wall", "The Great Wall of China is a series of fortifications built over many centuries, largely "
                   "during the Ming dynasty, to protect Chinese states against raids from northern nomads."),
]

#: (question, source of the passage that answers it); none quotes its passage's key terms
QUERIES: list[tuple[str, str]] = [
    ("Which French landmark was put up for an international exhibition at the end of the 19th century?", "eiffel"),
    ("How high is the iron structure that Gustave's firm designed?", "eiffel"),
    ("Where can I go to see Leonardo's famous portrait of a smiling woman?", "louvre"),
    ("Which gallery gets more visitors than any other museum on the planet?", "louvre"),
    ("What is the tallest peak in the world?", "everest"),
    ("Who were the first climbers to stand on top of the world's highest summit?", "everest"),
    ("Which mountain is ranked just below the tallest one?", "k2"),
    ("What Himalayan-area peak is considered more dangerous to climb than the highest one?", "k2"),
    ("How do plants turn light into food?", "photosynthesis"),
    ("Where does the oxygen we breathe come from in leaves?", "photosynthesis"),
    ("How do our cells get energy from sugar?", "respiration"),
    ("What organelle produces ATP?", "respiration"),
    ("Why does the red planet look red?", "mars"),
    ("What are the names of the satellites orbiting the fourth world from our star?", "mars"),
    ("What is the biggest planet orbiting our Sun?", "jupiter"),
    ("Which giant world has an enormous long-lived storm?", "jupiter"),
    ("Who invented the language known for its indentation-based syntax?", "python"),
    ("When did Guido's scripting language first come out?", "python"),
    ("Which language avoids memory bugs without automatic garbage collection?", "rust"),
    ("What is the borrow checker for?", "rust"),
    ("How does immunisation prepare the body to fight disease?", "vaccine"),
    ("Why do shots protect you before you ever catch the illness?", "vaccine"),
    ("Can I take penicillin for a cold caused by a virus?", "antibiotics"),
    ("Why are doctors worried about prescribing too many bacterial drugs?", "antibiotics"),
    ("Why does my morning espresso wake me up?", "coffee"),
    ("What is the drink made from roasted beans of a tropical shrub?", "coffee"),
    ("What is the difference between green and black varieties of the same leaf drink?", "tea"),
    ("Do oolong, green and black brews come from one species?", "tea"),
    ("Why do central bankers hike rates when everything gets more expensive?", "inflation"),
    ("What does it mean when the cost of living keeps going up?", "inflation"),
    ("Why did the Ming emperors build a huge barrier across northern China?", "great-wall"),
    ("What defensive structure was meant to keep out raiders from the steppe?", "great-wall"),
]

_WORD = re.compile(r"[a-z0-9]+")
_STOP = set("a an and are as at be by can do does for from get go how i in is it its me my of on or our so "
            "the their them they this to was we what when where which who why with you".split())


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def overlap_ranking(question: str) -> list[str]:
    """Sources ranked by the share of the question's content words found in the passage."""
    q = _words(question)
    scored = [(len(q & _words(text)) / max(len(q), 1), -i, source) for i, (source, text) in enumerate(CORPUS)]
    return [source for *_, source in sorted(scored, reverse=True)]


def metrics(rankings: list[list[str]]) -> tuple[float, float]:
    """(top-1 accuracy, mean reciprocal rank) of rankings against QUERIES."""
    top1 = [ranking[0] == want for ranking, (_, want) in zip(rankings, QUERIES)]
    rr = [1.0 / (ranking.index(want) + 1) if want in ranking else 0.0 for ranking, (_, want) in zip(rankings, QUERIES)]
    return sum(top1) / len(top1), sum(rr) / len(rr)


def embedding_rankings() -> list[list[str]]:
    from llm_validation_framework.retrieval import RAGProvider

    provider = RAGProvider.from_texts([text for _, text in CORPUS],
                                      metadatas=[{"source": source} for source, _ in CORPUS], k=len(CORPUS))
    return [[p.source for p in provider.retrieve(question)] for question, _ in QUERIES]
