"""GM414 across files: a decorator whose wrapper calls what it wraps inside `try: ... finally:`
(transformers 5.24's `capture_outputs`). When a wrapped forward raises under torch.compile (a
value an `is_compiling()` test leaves None, model.py), the exception passes the `finally`, and
Dynamo logs it again at the finally's last line ("Observed exception"). test_wrapped_raise.py
compares Dynamo's graph-break log with the marked lines of both files and graphmend's findings."""
import functools

_collected = []


def capture_outputs(func):
    @functools.wraps(func)
    def wrapper(self, *args, **kwargs):
        _collected.append([])
        try:
            outputs = func(self, *args, **kwargs)
        finally:
            _collected.pop()  # expect: GM414 reported -- when a function it wraps raises
        return outputs

    return wrapper


def caught(func):
    """A handler catches the exception before the `finally`: Dynamo logs only the raise."""

    @functools.wraps(func)
    def wrapper(self, *args, **kwargs):
        _collected.append([])
        try:
            outputs = func(self, *args, **kwargs)
        except TypeError:
            outputs = args[0]
        finally:
            _collected.pop()
        return outputs

    return wrapper


def hooked(hook):
    """A factory: its `try` calls the hook it was given, not the wrapped function."""

    def decorator(func):
        @functools.wraps(func)
        def wrapper(self, *args, **kwargs):
            outputs = func(self, *args, **kwargs)
            try:
                hook()
            finally:
                _collected.clear()
            return outputs

        return wrapper

    return decorator


def logged_calls(func):
    """The same without a `finally`: an exception leaves it where it is raised."""

    @functools.wraps(func)
    def wrapper(self, *args, **kwargs):
        return func(self, *args, **kwargs)

    return wrapper
