"""Who may come in and what a request may carry: the token, logins, hosts, body caps, headers."""
