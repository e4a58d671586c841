"""The NiceGUI window. It talks only to services from the container."""
