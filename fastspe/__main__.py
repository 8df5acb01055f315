from .cli import run

if __name__ == "__main__":  # not when a spawned worker process (Dask, multiprocessing) re-imports it
    run()
