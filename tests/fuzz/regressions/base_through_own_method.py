# `class B(B.m)`: resolving B.m looked through B's bases, which name B.m again (stack overflow).
class B(B.m):
    pass


class C(D.m):
    def m(self):
        pass


class D(C.m):
    def m(self):
        pass
