"""The text layer: sentence splitting, word overlap, evidence selection, prompt delimiting, sentence embeddings.

Pure functions over strings (embeddings use the offline MiniLM model); checks, citations and
retrieval share them instead of keeping their own.
"""
