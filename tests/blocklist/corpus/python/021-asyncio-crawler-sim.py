"""Simulated concurrent downloader: network calls are replaced by asyncio.sleep."""
import asyncio
import random
import time

PAGES = {
    "https://example.com/": ["/about", "/blog", "/contact"],
    "https://example.com/about": ["/team"],
    "https://example.com/blog": ["/blog/1", "/blog/2", "/about"],
    "https://example.com/blog/1": [],
    "https://example.com/blog/2": ["/blog/1"],
    "https://example.com/team": [],
    "https://example.com/contact": ["/broken"],
}


class FetchError(Exception):
    pass


async def fake_fetch(url, rng):
    await asyncio.sleep(rng.uniform(0.01, 0.05))
    if url not in PAGES:
        raise FetchError(f"404 for {url}")
    return PAGES[url]


async def crawl(start, concurrency=3):
    rng = random.Random(1)
    seen, results, errors = {start}, {}, {}
    queue: asyncio.Queue[str] = asyncio.Queue()
    await queue.put(start)
    sem = asyncio.Semaphore(concurrency)

    async def worker(wid):
        while True:
            url = await queue.get()
            try:
                async with sem:
                    links = await asyncio.wait_for(fake_fetch(url, rng), timeout=1)
                results[url] = len(links)
                for link in links:
                    absolute = "https://example.com" + link
                    if absolute not in seen:
                        seen.add(absolute)
                        await queue.put(absolute)
            except FetchError as exc:
                errors[url] = str(exc)
            finally:
                queue.task_done()

    workers = [asyncio.create_task(worker(i)) for i in range(concurrency)]
    await queue.join()
    for w in workers:
        w.cancel()
    await asyncio.gather(*workers, return_exceptions=True)
    return results, errors


async def main():
    t0 = time.perf_counter()
    results, errors = await crawl("https://example.com/")
    for url in sorted(results):
        print(f"{results[url]} links  {url}")
    for url, err in errors.items():
        print(f"error    {url}: {err}")
    print(f"crawled {len(results)} pages in {time.perf_counter() - t0:.2f}s")

    timings = await asyncio.gather(*(asyncio.sleep(0.01 * i, result=i) for i in range(5)))
    print("gather preserves order:", timings)


if __name__ == "__main__":
    asyncio.run(main())
