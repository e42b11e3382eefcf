"""Acquisition: getting text and time out of a source (documents, subtitles, media, frames)."""
