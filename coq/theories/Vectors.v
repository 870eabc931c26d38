(** * Rationals and vectors: the fast operations equal the exact ones

    [veqp x y]: equal coordinates, a missing coordinate read as 0 (the setoid of the
    proofs; [veq] adds equal lengths). *)
From Coq Require Import QArith Qminmax List Bool Lia Lqa Setoid Morphisms.
From Proofcheck Require Import Semantics Fast.
Import ListNotations.
Open Scope Q_scope.

(** ** Rationals *)
Lemma qzero_eq x : qzero x = true -> x == 0.
Proof. destruct x as [[|p|p] q]; unfold qzero, Qeq; simpl; intros H; try discriminate; reflexivity. Qed.

Lemma qzero_iff x : qzero x = true <-> x == 0.
Proof.
  split; [apply qzero_eq|]. destruct x as [[|p|p] q]; unfold qzero, Qeq; simpl; intros H; auto; lia.
Qed.

Lemma qone_eq x : qone x = true -> x = 1.
Proof. destruct x as [[|[p|p|]|p] [q|q|]]; unfold qone; simpl; intros H; try discriminate; reflexivity. Qed.

Lemma qint_den x : qint x = true -> Qden x = 1%positive.
Proof. destruct x as [n [q|q|]]; unfold qint; simpl; intros H; try discriminate; reflexivity. Qed.

Lemma qnorm_eq x : qnorm x == x.
Proof. unfold qnorm. destruct (qint x); [reflexivity | apply Qred_correct]. Qed.

Lemma qint_make x : qint x = true -> x = Qmake (Qnum x) 1.
Proof. intros H. apply qint_den in H. destruct x; simpl in *; subst; reflexivity. Qed.

Lemma qadd_eq x y : qadd x y == x + y.
Proof.
  unfold qadd.
  destruct (qzero x) eqn:Hx; [apply qzero_eq in Hx; rewrite Hx; ring|].
  destruct (qzero y) eqn:Hy; [apply qzero_eq in Hy; rewrite Hy; ring|].
  destruct (qint x) eqn:Ix, (qint y) eqn:Iy; simpl; try reflexivity.
  rewrite (qint_make x Ix) at 2. rewrite (qint_make y Iy) at 2.
  unfold Qplus, Qeq; simpl; ring.
Qed.

Lemma qmul_eq x y : qmul x y == x * y.
Proof.
  unfold qmul.
  destruct (qzero x) eqn:Hx; simpl; [apply qzero_eq in Hx; rewrite Hx; ring|].
  destruct (qzero y) eqn:Hy; simpl; [apply qzero_eq in Hy; rewrite Hy; ring|].
  destruct (qone x) eqn:Ox; [apply qone_eq in Ox; subst; ring|].
  destruct (qone y) eqn:Oy; [apply qone_eq in Oy; subst; ring|].
  destruct (qint x) eqn:Ix, (qint y) eqn:Iy; simpl; try reflexivity.
  rewrite (qint_make x Ix) at 2. rewrite (qint_make y Iy) at 2.
  unfold Qmult, Qeq; simpl; ring.
Qed.

Lemma qle_spec x y : qle x y = Qle_bool x y.
Proof.
  unfold qle. destruct (qint x) eqn:Ix, (qint y) eqn:Iy; simpl; try reflexivity.
  rewrite (qint_make x Ix), (qint_make y Iy). unfold Qle_bool; simpl. now rewrite !Z.mul_1_r.
Qed.

Lemma qle_iff x y : qle x y = true <-> x <= y.
Proof. rewrite qle_spec. apply Qle_bool_iff. Qed.

Lemma qle_false x y : qle x y = false -> y < x.
Proof.
  intros H. apply Qnot_le_lt. intros H'. apply qle_iff in H'. congruence.
Qed.

Lemma qeqb_spec x y : qeqb x y = Qeq_bool x y.
Proof.
  unfold qeqb. destruct (qint x) eqn:Ix, (qint y) eqn:Iy; simpl; try reflexivity.
  rewrite (qint_make x Ix), (qint_make y Iy). apply eq_true_iff_eq.
  rewrite Z.eqb_eq, Qeq_bool_iff. unfold Qeq; simpl. lia.
Qed.

Lemma qeqb_iff x y : qeqb x y = true <-> x == y.
Proof. rewrite qeqb_spec. apply Qeq_bool_iff. Qed.

Lemma qmax_eq x y : qmax x y == Qmax x y.
Proof.
  unfold qmax. destruct (qle x y) eqn:H.
  - apply qle_iff in H. symmetry. now apply Q.max_r.
  - apply qle_false in H. symmetry. apply Q.max_l. now apply Qlt_le_weak.
Qed.

Lemma qpos_iff x : qpos x = true <-> 0 < x.
Proof.
  destruct x as [n d]. unfold qpos, Qlt; simpl. rewrite Z.ltb_lt. lia.
Qed.

Lemma qsame_eq x y : qsame x y = true -> x = y.
Proof.
  destruct x as [n d], y as [m e]. unfold qsame; simpl.
  rewrite andb_true_iff, Z.eqb_eq, Pos.eqb_eq. intros [-> ->]. reflexivity.
Qed.

Lemma rowb_eq x y : rowb x y = true -> x = y.
Proof.
  revert y; induction x as [|a x IH]; intros [|c y]; simpl; try discriminate; auto.
  rewrite andb_true_iff. intros [H1 H2]. apply qsame_eq in H1. f_equal; auto.
Qed.

Lemma veqb_veq x y : veqb x y = true -> veq x y.
Proof.
  unfold veq. revert y; induction x as [|a x IH]; intros [|c y]; simpl; try discriminate.
  - constructor.
  - rewrite andb_true_iff, qeqb_iff. intros [H1 H2]. constructor; auto.
Qed.

Lemma qsign_cases x : {0 < x} + {x == 0} + {x < 0}.
Proof.
  destruct (Qlt_le_dec 0 x) as [H|H]; [left; left; exact H|].
  destruct (Qeq_dec x 0) as [E|E]; [left; right; exact E|].
  right. apply Qle_lt_or_eq in H. destruct H as [H|H]; auto. exfalso. apply E. now symmetry.
Qed.

(** ** Vectors up to zero padding *)
Definition veqp (x y : vec) : Prop := forall i, nth i x 0 == nth i y 0.

Global Instance veqp_equiv : Equivalence veqp.
Proof.
  split; unfold veqp; [intros x i; reflexivity | intros x y H i; now symmetry |].
  intros x y z H1 H2 i. now rewrite H1.
Qed.

Lemma nth_nil i : nth i ([] : vec) 0 = 0.
Proof. now destruct i. Qed.

Lemma veqp_cons a x c y : veqp (a :: x) (c :: y) <-> a == c /\ veqp x y.
Proof.
  split.
  - intros H. split; [apply (H 0%nat)|]. intros i. apply (H (S i)).
  - intros [H1 H2] [|i]; simpl; auto.
Qed.

Lemma veqp_nil_cons a x : veqp [] (a :: x) <-> a == 0 /\ veqp [] x.
Proof.
  split.
  - intros H. split; [symmetry; apply (H 0%nat)|]. intros i.
    rewrite nth_nil. exact (H (S i)).
  - intros [H1 H2] [|i]; [simpl; now symmetry|]. specialize (H2 i). rewrite nth_nil in H2.
    exact H2.
Qed.

Lemma nth_vadd x y i : nth i (vadd x y) 0 == nth i x 0 + nth i y 0.
Proof.
  revert y i; induction x as [|a x IH]; intros [|c y] [|i]; simpl; try ring;
    rewrite ?nth_nil; try ring. apply IH.
Qed.

Lemma nth_vscale c x i : nth i (vscale c x) 0 == c * nth i x 0.
Proof.
  revert i; induction x as [|a x IH]; intros [|i]; simpl; try ring; auto.
Qed.

Global Instance vadd_proper : Proper (veqp ==> veqp ==> veqp) vadd.
Proof. intros x x' Hx y y' Hy i. rewrite !nth_vadd, (Hx i), (Hy i). reflexivity. Qed.

Global Instance vscale_proper : Proper (Qeq ==> veqp ==> veqp) vscale.
Proof. intros c c' Hc x x' Hx i. rewrite !nth_vscale, Hc, (Hx i). reflexivity. Qed.

Lemma vadd_comm x y : veqp (vadd x y) (vadd y x).
Proof. intros i. rewrite !nth_vadd. ring. Qed.

Lemma vadd_assoc x y z : veqp (vadd x (vadd y z)) (vadd (vadd x y) z).
Proof. intros i. rewrite !nth_vadd. ring. Qed.

Lemma vadd_nil_r x : veqp (vadd x []) x.
Proof. intros i. rewrite nth_vadd, nth_nil. ring. Qed.

Lemma vadd_nil_l x : veqp (vadd [] x) x.
Proof. intros i. rewrite nth_vadd, nth_nil. ring. Qed.

Lemma vscale_zero c x : c == 0 -> veqp (vscale c x) [].
Proof. intros H i. rewrite nth_vscale, nth_nil, H. ring. Qed.

Lemma vscale_one x : veqp (vscale 1 x) x.
Proof. intros i. rewrite nth_vscale. ring. Qed.

Lemma vscale_vadd c x y : veqp (vscale c (vadd x y)) (vadd (vscale c x) (vscale c y)).
Proof. intros i. rewrite !nth_vadd, !nth_vscale, nth_vadd. ring. Qed.

Lemma vscale_plus c e x : veqp (vscale (c + e) x) (vadd (vscale c x) (vscale e x)).
Proof. intros i. rewrite !nth_vadd, !nth_vscale. ring. Qed.

Lemma vscale_mult c e x : veqp (vscale c (vscale e x)) (vscale (c * e) x).
Proof. intros i. rewrite !nth_vscale. ring. Qed.

Lemma vscale_nil c : vscale c [] = [].
Proof. reflexivity. Qed.

Lemma vsum_cons x xs : vsum (x :: xs) = vadd x (vsum xs).
Proof. reflexivity. Qed.

Lemma vsum_app xs ys : veqp (vsum (xs ++ ys)) (vadd (vsum xs) (vsum ys)).
Proof.
  induction xs as [|x xs IH]; simpl; [symmetry; apply vadd_nil_l|].
  rewrite IH. apply vadd_assoc.
Qed.

Lemma vsum_proper xs ys : Forall2 veqp xs ys -> veqp (vsum xs) (vsum ys).
Proof. induction 1; simpl; [reflexivity|]. now rewrite H, IHForall2. Qed.

Lemma vsum_zero xs : Forall (fun x => veqp x []) xs -> veqp (vsum xs) [].
Proof. induction 1; simpl; [reflexivity|]. rewrite H, IHForall. apply vadd_nil_l. Qed.

Lemma vscale_vsum c xs : veqp (vscale c (vsum xs)) (vsum (map (vscale c) xs)).
Proof.
  induction xs as [|x xs IH]; simpl; [reflexivity|]. now rewrite vscale_vadd, IH.
Qed.

(** ** Dot products *)
Lemma dot_nil_r x : dot x [] = 0.
Proof. now destruct x. Qed.

Lemma dot_veqp_l x x' y : veqp x x' -> dot x y == dot x' y.
Proof.
  revert x x'; induction y as [|c y IH]; intros x x' H; [rewrite !dot_nil_r; reflexivity|].
  destruct x as [|a x], x' as [|a' x']; simpl.
  - reflexivity.
  - apply veqp_nil_cons in H as [H1 H2]. rewrite H1, <- (IH [] x' H2). simpl. ring.
  - symmetry in H. apply veqp_nil_cons in H as [H1 H2]. rewrite H1, (IH x [] (symmetry H2)).
    simpl. ring.
  - apply veqp_cons in H as [H1 H2]. rewrite H1, (IH x x' H2). reflexivity.
Qed.

Lemma dot_comm x y : dot x y == dot y x.
Proof.
  revert y; induction x as [|a x IH]; intros [|c y]; simpl; try reflexivity. rewrite (IH y). ring.
Qed.

Global Instance dot_proper : Proper (veqp ==> veqp ==> Qeq) dot.
Proof.
  intros x x' Hx y y' Hy. rewrite (dot_veqp_l x x' y Hx), dot_comm, (dot_veqp_l y y' x' Hy).
  apply dot_comm.
Qed.

Lemma dot_vadd_r r x y : dot r (vadd x y) == dot r x + dot r y.
Proof.
  revert x y; induction r as [|a r IH]; intros x y; simpl; [ring|].
  destruct x as [|c x], y as [|e y]; simpl; rewrite ?dot_nil_r; try ring.
  rewrite (IH x y). ring.
Qed.

Lemma dot_vscale_r r c x : dot r (vscale c x) == c * dot r x.
Proof.
  revert x; induction r as [|a r IH]; intros x; simpl; [ring|].
  destruct x as [|e x]; simpl; [ring|]. unfold vscale in IH. rewrite (IH x). ring.
Qed.

Lemma dot_vscale_l r c x : dot (vscale c r) x == c * dot r x.
Proof. rewrite dot_comm, dot_vscale_r, dot_comm. reflexivity. Qed.

(** ** The fast vector operations *)
Lemma dotf_eq u x : dotf u x == dot u x.
Proof.
  revert x; induction u as [|a u IH]; intros [|c x]; simpl; try reflexivity.
  destruct (qzero a) eqn:Z.
  - apply qzero_eq in Z. rewrite Z, (IH x). ring.
  - rewrite qadd_eq, qmul_eq, (IH x). reflexivity.
Qed.

Lemma map_scale_eq z w : veqp (map (fun a => qnorm (qmul z a)) w) (vscale z w).
Proof.
  induction w as [|a w IH]; [reflexivity|]. simpl. apply veqp_cons.
  split; [now rewrite qnorm_eq, qmul_eq | apply IH].
Qed.

Lemma scalef_eq c x : veqp (scalef c x) (vscale c x).
Proof.
  unfold scalef. destruct (qone c) eqn:O.
  - apply qone_eq in O. subst. symmetry. apply vscale_one.
  - apply map_scale_eq.
Qed.

Lemma axpy_eq z w x : veqp (axpy z w x) (vadd x (vscale z w)).
Proof.
  revert x; induction w as [|a w IH]; intros [|c x].
  - reflexivity.
  - reflexivity.
  - change (veqp (map (fun a => qnorm (qmul z a)) (a :: w)) (vadd [] (vscale z (a :: w)))).
    rewrite vadd_nil_l. apply map_scale_eq.
  - simpl. apply veqp_cons. split; [|apply IH].
    destruct (qzero a) eqn:Z.
    + apply qzero_eq in Z. rewrite Z. ring.
    + rewrite qnorm_eq, qadd_eq, qmul_eq. ring.
Qed.

Lemma vaddf_eq x y : veqp (vaddf x y) (vadd x y).
Proof.
  revert y; induction x as [|a x IH]; intros [|c y]; simpl; try reflexivity.
  apply veqp_cons. split; [|apply IH]. rewrite qnorm_eq, qadd_eq. reflexivity.
Qed.

Lemma vsumf_eq xs : veqp (vsumf xs) (vsum xs).
Proof. induction xs as [|x xs IH]; simpl; [reflexivity|]. now rewrite vaddf_eq, IH. Qed.

(** ** Lengths *)
Lemma length_vadd x y : length (vadd x y) = Nat.max (length x) (length y).
Proof. revert y; induction x as [|a x IH]; intros [|c y]; simpl; auto. Qed.

Lemma length_vscale c x : length (vscale c x) = length x.
Proof. apply map_length. Qed.

Lemma length_vsum d xs : Forall (fun x => (length x <= d)%nat) xs -> (length (vsum xs) <= d)%nat.
Proof. induction 1; simpl; [lia|]. rewrite length_vadd. lia. Qed.

Lemma veq_of_veqp x y : veqp x y -> length x = length y -> veq x y.
Proof.
  unfold veq. revert y; induction x as [|a x IH]; intros [|c y] H L; simpl in *; try discriminate.
  - constructor.
  - apply veqp_cons in H as [H1 H2]. constructor; auto.
Qed.

Lemma veq_veqp x y : veq x y -> veqp x y.
Proof. induction 1; [reflexivity|]. now apply veqp_cons. Qed.

Lemma veq_length x y : veq x y -> length x = length y.
Proof. induction 1; simpl; auto. Qed.

Lemma veq_trans x y z : veq x y -> veq y z -> veq x z.
Proof.
  intros H1 H2. apply veq_of_veqp.
  - now rewrite (veq_veqp _ _ H1), (veq_veqp _ _ H2).
  - now rewrite (veq_length _ _ H1), (veq_length _ _ H2).
Qed.
