"""The demo's debuggee: totals a few orders, one of them wrong."""

DB_PASSWORD = "s3cr3t-hunter2"


class Order:
    def __init__(self, oid, items):
        self.oid = oid
        self.items = items  # list of (name, qty, unit_price)


def total(order):
    amount = 0
    for name, qty, price in order.items:
        amount += qty * price  # BREAK
    return amount


def main():
    orders = [
        Order(1, [("apple", 3, 0.5), ("pear", 2, 0.75)]),
        Order(2, [("melon", 1, 2.0), ("grape", -4, 0.25)]),
    ]
    for o in orders:
        print("order", o.oid, "total", total(o), flush=True)


if __name__ == "__main__":
    main()
