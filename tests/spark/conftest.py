"""One local SparkSession for the whole Spark test module (starting the JVM takes seconds)."""
import pytest


@pytest.fixture(scope="session")
def spark():
    from rebalance.spark import get_spark

    session = get_spark(app_name="rebalance-tests", cores=2, shuffle_partitions=4)
    yield session
    # the session is left running for other test modules; the JVM ends with the interpreter
