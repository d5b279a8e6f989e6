package dev.candor.bench;

import java.util.SplittableRandom;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.IntPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SerialMergeScheduler;
import org.apache.lucene.index.Term;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * Lucene (org.apache.lucene:lucene-core, -analysis-common, -queryparser): each unit of work indexes
 * {@code --docs} generated documents (title, a body of 40-200 Zipf-distributed words, category,
 * price as a point, doc values and stored field) with the English analyzer (Porter stemming) into a
 * ByteBuffersDirectory, flushing every 5,000 documents and merging on the calling thread (serial
 * merge scheduler, so the work is the same in every run), force-merges to 4 segments, then runs
 * {@code --queries} queries (terms, boolean, phrases, price ranges, parsed query strings, some sorted
 * by price) for the top 10 hits, reading the stored fields of the hits.
 *
 * <pre>lucene [--docs 10000] [--queries 3000] [--seconds S]</pre>
 */
final class LuceneBench {
    private LuceneBench() {}

    static final String[] CATEGORIES = {"books", "music", "garden", "tools", "toys", "food", "sports", "health"};

    static void main(String[] args) throws Exception {
        int docs = Main.intOpt(args, "--docs", 10000);
        int queries = Main.intOpt(args, "--queries", 3000);
        String[] words = LibRun.vocabulary(8000, 3);
        LibRun.run("lucene", String.format("docs=%d queries=%d", docs, queries), args,
                loop -> work(words, docs, queries));
    }

    static String text(SplittableRandom rnd, String[] words, int n) {
        StringBuilder sb = new StringBuilder(n * 8);
        for (int i = 0; i < n; i++) {
            sb.append(words[LibRun.zipf(rnd, words.length)]);
            sb.append(i % 13 == 12 ? ". " : " ");
        }
        return sb.toString();
    }

    static long work(String[] words, int docs, int queries) throws Exception {
        SplittableRandom rnd = new SplittableRandom(5);
        long sum = 0;
        try (ByteBuffersDirectory dir = new ByteBuffersDirectory(); Analyzer analyzer = new EnglishAnalyzer()) {
            IndexWriterConfig cfg = new IndexWriterConfig(analyzer);
            cfg.setMaxBufferedDocs(5000);
            cfg.setRAMBufferSizeMB(IndexWriterConfig.DISABLE_AUTO_FLUSH);
            cfg.setMergeScheduler(new SerialMergeScheduler());
            cfg.setCommitOnClose(true);
            try (IndexWriter w = new IndexWriter(dir, cfg)) {
                for (int i = 0; i < docs; i++) {
                    Document d = new Document();
                    d.add(new StringField("id", Integer.toString(i), Field.Store.YES));
                    d.add(new TextField("title", text(rnd, words, 3 + rnd.nextInt(6)), Field.Store.YES));
                    d.add(new TextField("body", text(rnd, words, 40 + rnd.nextInt(160)), Field.Store.NO));
                    d.add(new StringField("category", CATEGORIES[rnd.nextInt(CATEGORIES.length)], Field.Store.YES));
                    int price = rnd.nextInt(100_000);
                    d.add(new IntPoint("price", price));
                    d.add(new NumericDocValuesField("price", price));
                    d.add(new StoredField("price", price));
                    w.addDocument(d);
                }
                w.forceMerge(4);
            }
            try (DirectoryReader reader = DirectoryReader.open(dir)) {
                IndexSearcher searcher = new IndexSearcher(reader);
                QueryParser parser = new QueryParser("body", analyzer);
                Sort byPrice = new Sort(new SortField("price", SortField.Type.INT));
                for (int q = 0; q < queries; q++) {
                    Query query;
                    String a = words[LibRun.zipf(rnd, 2000)];
                    String b = words[LibRun.zipf(rnd, 2000)];
                    String c = words[LibRun.zipf(rnd, words.length)];
                    switch (q % 6) {
                        case 0 -> query = new TermQuery(new Term("body", stem(analyzer, a)));
                        case 1 -> query = new BooleanQuery.Builder()
                                .add(new TermQuery(new Term("body", stem(analyzer, a))), BooleanClause.Occur.MUST)
                                .add(new TermQuery(new Term("body", stem(analyzer, b))), BooleanClause.Occur.SHOULD)
                                .add(new TermQuery(new Term("category", CATEGORIES[q % CATEGORIES.length])),
                                        BooleanClause.Occur.FILTER)
                                .build();
                        case 2 -> query = new PhraseQuery(1, "body", stem(analyzer, a), stem(analyzer, b));
                        case 3 -> {
                            int lo = rnd.nextInt(90_000);
                            query = new BooleanQuery.Builder()
                                    .add(IntPoint.newRangeQuery("price", lo, lo + 5_000), BooleanClause.Occur.FILTER)
                                    .add(new TermQuery(new Term("body", stem(analyzer, a))), BooleanClause.Occur.MUST)
                                    .build();
                        }
                        case 4 -> query = parser.parse(a + " AND (" + b + " OR " + c + ") -title:" + words[q % 50]);
                        default -> query = parser.parse("title:" + a + " OR \"" + b + " " + c + "\"~3");
                    }
                    TopDocs top = q % 5 == 4 ? searcher.search(query, 10, byPrice) : searcher.search(query, 10);
                    sum += top.totalHits.value;
                    var stored = searcher.storedFields();
                    for (ScoreDoc sd : top.scoreDocs) {
                        sum = sum * 31 + stored.document(sd.doc).get("id").hashCode();
                    }
                }
            }
        }
        return sum;
    }

    static String stem(Analyzer analyzer, String word) throws java.io.IOException {
        try (var ts = analyzer.tokenStream("body", word)) {
            var term = ts.addAttribute(org.apache.lucene.analysis.tokenattributes.CharTermAttribute.class);
            ts.reset();
            String out = ts.incrementToken() ? term.toString() : word;
            ts.end();
            return out;
        }
    }
}
