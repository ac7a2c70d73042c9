import math
from abc import ABC, abstractmethod
from functools import total_ordering


@total_ordering
class Shape(ABC):
    name = "shape"

    @abstractmethod
    def area(self) -> float: ...

    @abstractmethod
    def perimeter(self) -> float: ...

    def __eq__(self, other):
        return isinstance(other, Shape) and math.isclose(self.area(), other.area())

    def __lt__(self, other):
        return self.area() < other.area()

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class Circle(Shape):
    name = "circle"

    def __init__(self, r):
        if r <= 0:
            raise ValueError("radius must be positive")
        self.r = r

    def area(self):
        return math.pi * self.r ** 2

    def perimeter(self):
        return 2 * math.pi * self.r


class Rectangle(Shape):
    name = "rectangle"

    def __init__(self, w, h):
        self.w, self.h = w, h

    def area(self):
        return self.w * self.h

    def perimeter(self):
        return 2 * (self.w + self.h)


class Square(Rectangle):
    name = "square"

    def __init__(self, side):
        super().__init__(side, side)


class Triangle(Shape):
    name = "triangle"

    def __init__(self, a, b, c):
        if a + b <= c or a + c <= b or b + c <= a:
            raise ValueError(f"sides {a}, {b}, {c} violate the triangle inequality")
        self.a, self.b, self.c = a, b, c

    def perimeter(self):
        return self.a + self.b + self.c

    def area(self):
        s = self.perimeter() / 2
        return math.sqrt(s * (s - self.a) * (s - self.b) * (s - self.c))


def main():
    shapes = [Circle(1.5), Rectangle(3, 4), Square(2.5), Triangle(3, 4, 5), Circle(0.5)]
    for s in sorted(shapes):
        print(f"{s.name:<10} area={s.area():7.3f} perimeter={s.perimeter():7.3f}  {s!r}")
    print("largest:", max(shapes))
    print("Square is a Rectangle:", issubclass(Square, Rectangle))
    print("Rectangle(2, 3) == Rectangle(3, 2):", Rectangle(2, 3) == Rectangle(3, 2))
    for bad in (lambda: Circle(-1), lambda: Triangle(1, 2, 10), lambda: Shape()):
        try:
            bad()
        except (ValueError, TypeError) as exc:
            print("error:", exc)


if __name__ == "__main__":
    main()
