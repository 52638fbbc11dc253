package io.hotkeeper.spark;

import org.apache.spark.sql.SparkSession;

/** The one local[2] session of the module's tests, with Hotkeeper's functions registered. */
final class LocalSpark {
    private static SparkSession session;

    private LocalSpark() {
    }

    static synchronized SparkSession get() {
        if (session == null) {
            session = SparkSession.builder()
                    .master("local[2]")
                    .appName("hotkeeper-spark-tests")
                    .config("spark.ui.enabled", "false")
                    .config("spark.sql.shuffle.partitions", "4")
                    .config("spark.driver.host", "127.0.0.1")
                    .config("spark.sql.warehouse.dir", System.getProperty("java.io.tmpdir") + "/hotkeeper-spark-wh-"
                            + ProcessHandle.current().pid())
                    .getOrCreate();
            session.sparkContext().setLogLevel("WARN");
            HotkeeperSpark.register(session);
        }
        return session;
    }
}
