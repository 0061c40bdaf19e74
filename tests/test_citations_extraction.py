"""Citation keys, external references, sentence splitting and the ledger: examples and properties."""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llm_validation_framework.citations import (
    KeyLedger,
    cited_sentences,
    extract_references,
    find_malformed_markers,
    find_markers,
    normalize_key,
    strip_markers,
)
from llm_validation_framework.text.sentences import ABBREVIATIONS, split_sentences, word_count
from llm_validation_framework.types.inputs import Passage


def keys(text):
    return [m.keys for m in find_markers(text)]


# -- markers ----------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("Paris [1].", [("1",)]),
    ("Paris [1, 2].", [("1", "2")]),
    ("Paris [1][2].", [("1",), ("2",)]),
    ("Paris [1-3].", [("1", "2", "3")]),
    ("Paris [2–4; 7].", [("2", "3", "4", "7")]),
    ("Paris [^1].", [("1",)]),
    ("Paris [E12].", [("E12",)]),
    ("Paris [e12, E13].", [("E12", "E13")]),
    ("Paris [p1].", [("P1",)]),
    ("months[2].", [("2",)]),
    ("cells [2][3] .", [("2",), ("3",)]),
])
def test_marker_formats(text, expected):
    assert keys(text) == expected


@pytest.mark.parametrize("text", [
    "a link [1](https://example.com)",          # markdown link, not a key
    "code `x = a[1]` here",                      # inline code
    "```\nitems[2] = 3\n```",                    # fenced code
    "[^1]: a footnote definition",               # definition, not a citation
    "checkbox [x] and [ edit ] and [Source]",    # no digits
    "unclosed [1, 2 bracket",
])
def test_not_markers(text):
    assert find_markers(text) == []


def test_ranges_reversed_or_huge_stay_unresolvable():
    assert keys("x [3-1].") == [("3-1",)]
    assert keys("x [1-100000].") == [("1-100000",)]
    assert KeyLedger([Passage("1", "a"), Passage("3", "b")]).resolve(["3-1"]) == ([], ["3-1"])


def test_normalize_key():
    assert normalize_key("[^01]") == "1"
    assert normalize_key(" e12 ") == "E12"
    assert normalize_key("doc-Seven") == "doc-seven"


def test_malformed_markers_reported():
    assert find_malformed_markers("Paris is big [1, 2. Berlin too [3].") == ["[1, 2"]
    assert find_malformed_markers("fine [1] and [link](https://x.org) and [^1]: def") == []


def test_strip_markers():
    assert strip_markers("Paris is big [1][2] . And [3], more.") == "Paris is big. And, more."


# -- references --------------------------------------------------------------------------------

def test_reference_patterns_seed_example():
    text = """Green tea has numerous health benefits:

    1. Rich in antioxidants [Source](https://healthline.com/green-tea-benefits)
    2. May improve brain function (Smith et al., 2020)
    3. Great for parties! [Party Guide](https://party-planning.com)
    """
    found = [(r.text, r.kind) for r in extract_references(text)]
    assert found == [("[Source](https://healthline.com/green-tea-benefits)", "markdown_link"),
                     ("(Smith et al., 2020)", "academic"),
                     ("[Party Guide](https://party-planning.com)", "markdown_link")]


def test_reference_kinds_and_trailing_punctuation():
    text = ("See www.example.com/page, doi:10.1234/example and https://doi.org/10.5555/abc.def. "
            "Also https://en.wikipedia.org/wiki/Mercury_(planet). (Smith, 2023; Lee and Kim 2021) and "
            "Jones et al. (2019). Visit http://foo.com. `https://in-code.example`")
    found = [(r.text, r.kind) for r in extract_references(text)]
    assert found == [
        ("www.example.com/page", "www"), ("doi:10.1234/example", "doi"),
        ("https://doi.org/10.5555/abc.def", "doi"), ("https://en.wikipedia.org/wiki/Mercury_(planet)", "url"),
        ("(Smith, 2023)", "academic"), ("(Lee and Kim 2021)", "academic"),
        ("Jones et al. (2019)", "academic"), ("http://foo.com", "url")]


def test_no_references_in_plain_text_or_numbers():
    assert extract_references("In 2023 (the year) sales rose 3.5% [1]. Mr. Smith (CEO) agreed.") == []


# -- sentences ---------------------------------------------------------------------------------

def texts(answer):
    return [s.text for s in split_sentences(answer)]


@pytest.mark.parametrize("answer, expected", [
    ("Dr. Smith lives in the U.S. and earns 3.14 dollars. He agreed [1].",
     ["Dr. Smith lives in the U.S. and earns 3.14 dollars.", "He agreed [1]."]),
    ("Paris is the capital. [1] Berlin is too [2][3] . Some U.S. states honor microbes [1].",
     ["Paris is the capital. [1]", "Berlin is too [2][3] .", "Some U.S. states honor microbes [1]."]),
    ("Visit https://example.com/a.b. Then go home.", ["Visit https://example.com/a.b.", "Then go home."]),
    ("J. K. Rowling wrote it (Smith et al., 2020). It sold approx. five copies!",
     ["J. K. Rowling wrote it (Smith et al., 2020).", "It sold approx. five copies!"]),
    ("Is it? Yes! Really… Fine.", ["Is it?", "Yes!", "Really…", "Fine."]),
    ("Benefits:\n\n1. Rich in antioxidants [1]\n2. Better sleep [2]\n- A bullet. Two sentences here.",
     ["Benefits:", "1. Rich in antioxidants [1]", "2. Better sleep [2]", "- A bullet.", "Two sentences here."]),
    ("# Title\nBody text here. More text.", ["# Title", "Body text here.", "More text."]),
    ("A soft\nwrapped line. Next one.", ["A soft\nwrapped line.", "Next one."]),
])
def test_split_examples(answer, expected):
    assert texts(answer) == expected


def test_code_block_is_one_unsplit_segment():
    answer = "Run this. It works.\n```python\nx = a[1]. Foo = 2. Bar\n```\nAfter the code [1]."
    sentences = split_sentences(answer)
    assert [s.kind for s in sentences] == ["text", "text", "code", "text"]
    assert sentences[2].text.startswith("```python") and "Bar" in sentences[2].text
    units = cited_sentences(answer, KeyLedger([Passage("1", "p")]))
    assert [u.keys for u in units] == [(), (), (), ("1",)]


def test_unclosed_fence_runs_to_end():
    answer = "Intro sentence here. Another one.\n```\ncode [1]. More. Code"
    assert [s.kind for s in split_sentences(answer)] == ["text", "text", "code"]


def test_word_count_ignores_markers():
    assert word_count("He agreed [1][2].") == 2
    assert word_count("A B C D [12].") == 4


def test_empty_and_whitespace():
    assert split_sentences("") == []
    assert split_sentences("   \n\n ") == []


# -- ledger ------------------------------------------------------------------------------------

def test_ledger_resolves_and_flags_fabricated():
    ledger = KeyLedger([Passage("1", "one"), Passage("E12", "twelve"), Passage("p3", "three")])
    found, missing = ledger.resolve(["1", "e12", "P3", "9"])
    assert [p.id for p in found] == ["1", "E12", "p3"] and missing == ["9"]
    units = cited_sentences("Claim one [1]. Claim two [9]. No cite here at all.", ledger)
    assert [(u.cited, u.fabricated) for u in units] == [(True, False), (True, True), (False, False)]
    assert units[0].claim == "Claim one."


# -- properties --------------------------------------------------------------------------------

key_numbers = st.integers(min_value=1, max_value=40)
prefixes = st.sampled_from(["", "", "E", "p", "S"])


@st.composite
def marker_and_keys(draw):
    prefix = draw(prefixes)
    numbers = draw(st.lists(key_numbers, min_size=1, max_size=4, unique=True))
    style = draw(st.sampled_from(["comma", "adjacent", "caret", "range", "semicolon"]))
    if style == "range":
        low = numbers[0]
        high = low + draw(st.integers(min_value=0, max_value=5))
        expected = [f"{prefix.upper()}{n}" for n in range(low, high + 1)]
        return f"[{prefix}{low}-{prefix}{high}]", expected
    expected = [f"{prefix.upper()}{n}" for n in numbers]
    if style == "comma":
        return "[" + ", ".join(f"{prefix}{n}" for n in numbers) + "]", expected
    if style == "semicolon":
        return "[" + "; ".join(f"{prefix}{n}" for n in numbers) + "]", expected
    if style == "caret":
        return "".join(f"[^{prefix}{n}]" for n in numbers), expected
    return "".join(f"[{prefix}{n}]" for n in numbers), expected


words = st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=8).filter(lambda w: w not in ABBREVIATIONS)
abbreviation = st.sampled_from(["Dr.", "e.g.", "U.S.", "approx.", "3.14", "et al.", "www.example.com/a.b",
                                "https://x.org/p?q=1.2", "v2.0", "J. K."])


@st.composite
def sentence(draw):
    first = draw(st.sampled_from(["The", "A", "Some", "Paris", "Water", "It"]))
    body = draw(st.lists(st.one_of(words, abbreviation), min_size=2, max_size=10))
    if body[-1] in ("Dr.", "e.g.", "U.S.", "approx.", "et al.", "J. K."):
        body.append("done")
    marker, expected = draw(st.one_of(st.just(("", [])), marker_and_keys()))
    end = draw(st.sampled_from([".", "!", "?"]))
    placement = draw(st.sampled_from(["before", "after"]))
    text = f"{first} {' '.join(body)}"
    if marker and placement == "before":
        text = f"{text} {marker}{end}"
    elif marker:
        text = f"{text}{end} {marker}"
    else:
        text = f"{text}{end}"
    return text, expected


@given(marker_and_keys(), words, words)
def test_property_marker_keys_round_trip(marker, before, after):
    text, expected = marker
    found = find_markers(f"{before} {text} {after}.")
    assert [k for m in found for k in m.keys] == expected


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(sentence(), min_size=1, max_size=8), st.sampled_from([" ", "  ", "\n"]))
def test_property_generated_sentences_split_back(items, glue):
    answer = glue.join(text for text, _ in items)
    sentences = split_sentences(answer)
    assert [s.text for s in sentences] == [text for text, _ in items]
    units = cited_sentences(answer, KeyLedger([]))
    assert [list(u.keys) for u in units] == [list(dict.fromkeys(k)) for _, k in items]


@settings(max_examples=200)
@given(st.text(alphabet=string.ascii_letters + string.digits + " .,!?[]()^-\n`*#:/\"'", max_size=300))
def test_property_splitter_loses_nothing_and_keeps_offsets(answer):
    sentences = split_sentences(answer)
    previous_end = 0
    for number, s in enumerate(sentences):
        assert s.index == number
        assert answer[s.start:s.end] == s.text == s.text.strip() and s.text
        assert s.start >= previous_end
        assert not answer[previous_end:s.start].strip()  # only whitespace between sentences
        previous_end = s.end
    assert not answer[previous_end:].strip()
    for marker in find_markers(answer):  # a marker is never cut in two
        assert any(s.start <= marker.start and marker.end <= s.end for s in sentences)


@settings(max_examples=200)
@given(st.text(max_size=300))
def test_property_extractors_never_crash_on_any_text(text):
    for ref in extract_references(text):
        assert text[ref.start:ref.end] == ref.text or ref.kind == "academic"
    find_malformed_markers(text)
    strip_markers(text)


@given(st.sampled_from(["https://example.org/a", "http://x.co/path_(1)", "www.site.com/page",
                        "doi:10.1000/xyz123", "https://doi.org/10.1038/nphys1170"]),
       words, st.sampled_from([".", ",", ";", ")", "!", ""]))
def test_property_urls_found_without_trailing_punctuation(url, word, punct):
    found = extract_references(f"{word} see {url}{punct} {word}")
    assert [r.text for r in found] == [url]


def test_huge_answer_is_linear_enough():
    import time

    answer = " ".join(f"Sentence number {i} is about U.S. cities [{i % 9 + 1}]." for i in range(4000))
    started = time.perf_counter()
    sentences = split_sentences(answer)
    units = cited_sentences(answer, KeyLedger([Passage(str(i), "x") for i in range(1, 10)]), sentences)
    assert len(sentences) == 4000 and all(u.cited for u in units)
    assert time.perf_counter() - started < 60  # sanity bound only; typical well under a few seconds


@pytest.mark.parametrize("text", [
    "a." * 50000,                       # every point a candidate boundary, no spaces
    "[1, " * 30000,                     # a marker that never closes
    "[1 " * 30000,                      # openings without a close
    "(Smith, Jones, " * 20000,          # an author list that never ends
    "https://x.org/" + "." * 50000,     # a URL of trailing punctuation
    "- item [1]\n" * 20000,             # many list items
    "`code " * 20000,                   # unclosed inline code
    "```\n" * 20000,                    # many fences
])
def test_pathological_inputs_stay_fast(text):
    import time

    started = time.perf_counter()
    sentences = split_sentences(text)
    cited_sentences(text, KeyLedger([Passage("1", "x")]), sentences)
    extract_references(text)
    find_malformed_markers(text)
    assert time.perf_counter() - started < 10  # quadratic behaviour here took minutes before
