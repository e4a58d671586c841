"""Around every page: the theme and its script, the login menu, banners, keyboard shortcuts."""
