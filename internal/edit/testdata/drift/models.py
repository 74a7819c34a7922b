"""Inventory records and the rules that keep them consistent."""

from dataclasses import dataclass, field
from datetime import datetime, timezone


class StockError(Exception):
    """Raised when a change would leave the stock inconsistent."""


@dataclass
class Item:
    sku: str
    name: str
    quantity: int = 0
    reserved: int = 0
    updated: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    def available(self) -> int:
        return self.quantity - self.reserved  # never negative

    def reserve(self, count: int) -> None:
        if count <= 0:
            raise StockError(f"reserve {count}: count must be positive")
        if count > self.available():
            raise StockError(
                f"reserve {count} of {self.sku}: only {self.available()} available"
            )
        self.reserved += count
        self.touch()

    def release(self, count: int) -> None:
        if count > self.reserved:
            raise StockError(f"release {count}: only {self.reserved} reserved")
        self.reserved -= count
        self.touch()

    def touch(self) -> None:
        self.updated = datetime.now(timezone.utc)


class Inventory:
    def __init__(self):
        self.items = {}  # sku -> Item

    def add(self, item: Item) -> None:
        if item.sku in self.items:
            raise StockError(f"{item.sku} already exists")
        self.items[item.sku] = item

    def restock(self, sku: str, count: int) -> Item:
        item = self.items.get(sku)
        if item is None:
            raise StockError(f"no item {sku}")
        for _ in range(count):
            if item.quantity >= 10_000:
                break
            item.quantity += 1
        item.touch()
        return item
