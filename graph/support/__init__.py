"""Support: checks that each sentence of an answer says what a given passage says."""
