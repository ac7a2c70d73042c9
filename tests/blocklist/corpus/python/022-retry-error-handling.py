import functools
import logging
import random
import time

logging.basicConfig(level=logging.INFO, format="%(levelname)-7s %(name)s: %(message)s")
log = logging.getLogger("payments")


class PaymentError(Exception):
    """Base class for payment failures."""


class TransientError(PaymentError):
    pass


class CardDeclined(PaymentError):
    def __init__(self, card, reason):
        super().__init__(f"card ending {card[-4:]} declined: {reason}")
        self.card, self.reason = card, reason


def retry(times=3, base_delay=0.01, retry_on=(TransientError,)):
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for attempt in range(1, times + 1):
                try:
                    return fn(*args, **kwargs)
                except retry_on as exc:
                    if attempt == times:
                        log.error("giving up after %d attempts: %s", attempt, exc)
                        raise
                    delay = base_delay * 2 ** (attempt - 1)
                    log.warning("attempt %d failed (%s); retrying in %.2fs", attempt, exc, delay)
                    time.sleep(delay)
        return wrapper
    return decorator


rng = random.Random(3)


@retry(times=4)
def charge(card, amount):
    if amount <= 0:
        raise ValueError(f"amount must be positive, got {amount}")
    if card.endswith("0000"):
        raise CardDeclined(card, "insufficient funds")
    if rng.random() < 0.5:
        raise TransientError("gateway timeout")
    return {"card": card[-4:], "amount": amount, "status": "ok"}


def process(orders):
    summary = {"ok": 0, "declined": 0, "invalid": 0, "failed": 0}
    for card, amount in orders:
        try:
            receipt = charge(card, amount)
        except CardDeclined as exc:
            summary["declined"] += 1
            log.info("%s", exc)
        except ValueError as exc:
            summary["invalid"] += 1
            log.info("invalid order: %s", exc)
        except TransientError:
            summary["failed"] += 1
        else:
            summary["ok"] += 1
            log.info("charged %s", receipt)
        finally:
            log.debug("done with %s", card[-4:])
    return summary


if __name__ == "__main__":
    orders = [("4111111111111111", 25), ("4000000000000000", 10), ("5500000000000004", -5),
              ("4242424242424242", 99), ("378282246310005", 12)]
    result = process(orders)
    print(result)
    assert sum(result.values()) == len(orders)
    try:
        try:
            {}["missing"]
        except KeyError as inner:
            raise PaymentError("lookup failed") from inner
    except PaymentError as outer:
        print(f"chained: {outer!r} caused by {outer.__cause__!r}")
