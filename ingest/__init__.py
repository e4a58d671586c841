"""From files in the documents folder to searchable chunks in the store."""
