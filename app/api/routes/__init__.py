"""The routes: thin handlers over the container's services, one module per part of the API."""
