"""What BM25 indexes of a chunk, and its terms: shared by the repository and the indexing worker processes.

A worker process that chunks a file also gives each chunk's terms (`terms`), so that the main process, which
stores every chunk one after another, only numbers them (`ResearchRepository._keep_tokens`) instead of
tokenizing every chunk itself. A text's terms do not depend on what a tokenizer has seen before (only their
numbers do), so the numbers come out as if the main process had tokenized the chunks in the order stored.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from research_assistant.text.tokens import english_stemmer, index_words

if TYPE_CHECKING:
    import bm25s.tokenization

_per_thread = threading.local()
"""A tokenizer of this thread's own (its stemmer may not be shared between threads) and the stems it has
numbered, by number."""


def bm25_tokenizer() -> bm25s.tokenization.Tokenizer:
    """bm25s's tokenizer as the repository's BM25 indexes use it: English stopwords left out, words stemmed."""
    import bm25s.tokenization

    return bm25s.tokenization.Tokenizer(stopwords="en", stemmer=english_stemmer())


def bm25_text(title: str, text: str) -> str:
    """What BM25 indexes of a chunk: its title, then its text, then what a word index would drop of it as words of
    its own (`index_words`), so that a question on 'flex -n' finds the entry of '-n'."""
    return f"{title}\n{text}\n{index_words(text)}"


def bm25_query(query: str) -> str:
    """What BM25 looks for of a query: its words, and its options and version numbers as chunks' words for them."""
    return f"{query}\n{index_words(query)}"


def terms(texts: Sequence[str]) -> list[list[str]]:
    """The BM25 terms (stems) of each text (a chunk's `bm25_text`), as `bm25_tokenizer` makes them. A thread keeps
    one tokenizer, which remembers the stems of the words it has seen."""
    if not hasattr(_per_thread, "tokenizer"):
        _per_thread.tokenizer, _per_thread.stems = bm25_tokenizer(), []
    tokenizer: bm25s.tokenization.Tokenizer = _per_thread.tokenizer
    stems: list[str] = _per_thread.stems
    numbered = tokenizer.tokenize(list(texts), update_vocab=True, return_as="ids", show_progress=False)
    vocabulary = tokenizer.get_vocab_dict()  # stem -> number, numbered in the order first seen
    new = len(vocabulary) - len(stems)  # the stems this call numbered: the vocabulary's last ones
    stems.extend(reversed(list(itertools.islice(reversed(vocabulary), new))))
    return [[stems[number] for number in numbers] for numbers in numbered]
