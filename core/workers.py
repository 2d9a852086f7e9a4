"""The workers a Dask scheduler has now, asked of the scheduler itself.

``Client.scheduler_info()`` answers from the client's cache when its own refresh fails or the
client is between states, and the cache its periodic refresh keeps lists no workers at all (CI
saw a driver refuse "0 workers" on a cluster of two, just after a nanny restarted one)."""


def live_workers(client) -> dict:
    """{address: the scheduler's record of that worker} for every worker the scheduler has."""
    return client.sync(client.scheduler.identity, n_workers=-1)["workers"]
