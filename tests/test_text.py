"""The text layer: the sentence splitter's three rule sets, markup spans, overlap and its blend,
evidence selection, passage formatting."""

from __future__ import annotations

import pytest

from llm_validation_framework.text import evidence
from llm_validation_framework.text.evidence import select_evidence, select_sentences
from llm_validation_framework.text.markup import marker_matches, strip_markers
from llm_validation_framework.text.overlap import content_words, word_overlap
from llm_validation_framework.text.prompting import format_passages
from llm_validation_framework.text.sentences import split_sentences
from llm_validation_framework.types.inputs import Passage

# -- sentences -----------------------------------------------------------------------------------------

MIXED = ('He said "Stop." Then Dr. Lee left [1]. Next\n\n1. Driving a car.\n- e.g. Trains. More')


def texts(text: str, style: str) -> list[str]:
    return [s.text for s in split_sentences(text, style=style)]


def test_the_three_styles_keep_their_own_rules():
    assert texts(MIXED, "markdown") == ['He said "Stop."', "Then Dr. Lee left [1].", "Next", "1. Driving a car.",
                                        "- e.g. Trains.", "More"]
    # prose: no abbreviations, the closing quote falls in the gap, a list number is a piece of its own
    assert texts(MIXED, "prose") == ['He said "Stop.', "Then Dr.", "Lee left [1].", "Next", "1.", "Driving a car.",
                                     "- e.g.", "Trains.", "More"]
    # lines: every line alone, bullets dropped, a few abbreviations kept together
    assert texts(MIXED, "lines") == ['He said "Stop.', "Then Dr. Lee left [1].", "Next", "1.", "Driving a car.",
                                     "e.g. Trains.", "More"]


@pytest.mark.parametrize("style", ["markdown", "prose", "lines"])
def test_every_style_gives_offsets_into_the_text(style):
    text = "  - One. Two!\r\nThree?\u2028Four\n\n```\ncode. X\n```\nFive [2]. Six"
    sentences = split_sentences(text, style=style)
    assert sentences and all(text[s.start:s.end] == s.text for s in sentences)
    assert [s.index for s in sentences] == list(range(len(sentences)))
    assert split_sentences("  \n", style=style) == []


def test_split_sentences_prose():
    assert texts("One thing. Two things! Three?\n\nFour", "prose") == ["One thing.", "Two things!", "Three?", "Four"]


def test_unknown_style_is_refused():
    with pytest.raises(ValueError, match="style must be"):
        split_sentences("x", style="words")


# -- markup ----------------------------------------------------------------------------------------------

def test_markers_outside_code_and_footnote_definitions():
    text = "A [1]. `b [2]` c [^3]\n[^3]: note"
    assert [m.group(0) for m in marker_matches(text)] == ["[1]", "[^3]"]
    assert strip_markers("Paris is big [1], old [2].") == "Paris is big, old."


# -- overlap ---------------------------------------------------------------------------------------------

def test_word_overlap_baseline():
    assert word_overlap("The Eiffel Tower is in Paris [1].", ["Paris has the Eiffel Tower."]) == 1.0
    assert word_overlap("Bananas are yellow", ["Paris"]) == 0.0
    assert content_words("The [2] cat") == ["cat"]


# -- evidence ----------------------------------------------------------------------------------------------

PAGE = ("Paris is the capital of France. The city has 2.1 million residents. The Louvre is the most visited "
        "museum in the world. The Eiffel Tower was completed in 1889 for the World's Fair. Its height is 330 "
        "metres. The Seine flows through the city.")


def test_evidence_fits_unchanged():
    passages, reduced = select_sentences("anything", [PAGE, "short"], 10_000)
    assert passages == [PAGE, "short"] and reduced is False


@pytest.mark.parametrize("use_embeddings", [False, True])
def test_evidence_keeps_relevant_sentences_in_order(use_embeddings):
    other = "Bananas are yellow. Apples can be red or green."
    passages, reduced = select_sentences("When was the Eiffel Tower completed, and how tall is it?", [PAGE, other],
                                         120, use_embeddings=use_embeddings)
    assert reduced is True
    assert len(passages) == 2, "one entry per passage: passage numbers stay valid"
    assert "completed in 1889" in passages[0]
    assert sum(len(p) for p in passages) <= 140
    assert passages[1] == "" or "Banana" not in passages[0]
    assert passages[0].startswith("…")  # the gap before the kept sentence is marked


def test_evidence_falls_back_to_overlap_when_embeddings_fail(monkeypatch):
    import llm_validation_framework.text.embeddings as emb

    def broken(texts):
        raise RuntimeError("no model")

    monkeypatch.setattr(emb, "encode", broken)
    passages, reduced = select_sentences("Eiffel Tower completed 1889", [PAGE], 90)
    assert reduced and "1889" in passages[0]


def test_evidence_cuts_an_overlong_single_sentence():
    passages, reduced = select_sentences("x", ["x" * 500], 100, use_embeddings=False)
    assert reduced and 0 < len(passages[0]) <= 100


def test_evidence_on_passages_keeps_ids_and_counts_what_it_removed(monkeypatch):
    monkeypatch.setattr(evidence, "_embedding_scores", lambda focus, sentences: None)
    given = [Passage("E1", PAGE, "https://paris.example"), Passage("E2", "Bananas are yellow. Apples are red.")]
    assert select_evidence("Eiffel Tower 1889", given, None) == (given, 0)
    assert select_evidence("Eiffel Tower 1889", given, 10_000) == (given, 0)
    kept, removed = select_evidence("Eiffel Tower 1889", given, 120)
    assert [p.id for p in kept] == ["E1", "E2"] and kept[0].source == "https://paris.example"
    assert "1889" in kept[0].text and kept[1].text == "…"  # nothing kept: the id stays, its text is "…"
    assert removed == sum(len(p.text) for p in given) - sum(len(p.text) for p in kept)


# -- prompting -----------------------------------------------------------------------------------------------

def test_format_passages_numbers_strings_and_keeps_passage_ids():
    assert format_passages(["a", "b"]) == '<passage id="1">\na\n</passage>\n<passage id="2">\nb\n</passage>'
    assert format_passages([Passage("E7", "x </passage> y")]) == '<passage id="E7">\nx y\n</passage>'
